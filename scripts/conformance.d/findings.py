"""Reads a Schemathesis run's NDJSON events and fails on any finding scripts/conformance.d/exclusions.yaml does not list.

    findings.py REPORT_DIR EXCLUSIONS_YAML SCHEMATHESIS_STATUS

A finding is a failed check on an operation (the stateful phase names the operation whose response failed); each is
counted once however many cases showed it. Prints the counts, every finding (excluded ones with their reason),
exclusions that matched nothing, how many cases the document allows and the service refused (positive_data_acceptance
failures, excluded ones included: what is left of them is the semantic refusals the exclusions list), and exits 1 when a finding is not excluded, when Schemathesis reported an error, or
when it exited non-zero without a finding to explain it. An exclusion whose check is `error` excuses Schemathesis'
own errors on that operation (a fault of the tool, not an answer of the service).

A case whose path still holds an unfilled template (`{account_id}`, sent as `%7Baccount_id%7D`: a link the stateful
phase could not fill) names no resource at all, and the id patterns refuse braces: its refusal
(positive_data_acceptance) is counted apart, not as a finding. Every other check still counts on such a case.
"""
import glob
import json
import re
import sys

import yaml

report_dir, exclusions_path, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
exclusions = yaml.safe_load(open(exclusions_path)) or {}
excluded = {}
for entry in exclusions.get("exclusions", []):
    missing = {"check", "operation", "reason"} - set(entry)
    if missing or not str(entry["reason"]).strip():
        sys.exit("conformance: exclusion %r lacks %s" % (entry, ", ".join(sorted(missing)) or "a reason"))
    excluded[(entry["check"], entry["operation"])] = entry["reason"]

findings = {}  # (check, operation) -> (code, title, the first case that showed it)
errors = []
operations = set()
cases = 0
unfilled = 0
refused_positive = 0  # cases the document allows and the service refused
TEMPLATE = re.compile(r"^(\{|%7B)[A-Za-z_]+(\}|%7D)$", re.IGNORECASE)
paths = glob.glob(report_dir + "/*.ndjson")
if len(paths) != 1:
    sys.exit("conformance: expected one NDJSON report in %s, found %d" % (report_dir, len(paths)))
for line in open(paths[0]):
    event = json.loads(line)
    scenario = event.get("ScenarioFinished")
    if scenario is None:
        for kind in ("NonFatalError", "FatalError"):
            if kind in event:
                error = event[kind]
                label = error.get("label", "") if kind == "NonFatalError" else ""
                if ("error", label) in excluded:
                    print("  tool error on %s (excluded: %s): %s" % (label, excluded[("error", label)],
                          json.dumps(error.get("value", error))[:200]), file=sys.stderr)
                else:
                    errors.append(json.dumps(event)[:500])
        continue
    recorder = scenario["recorder"]
    if scenario.get("phase") != "stateful":
        operations.add(recorder["label"])
    cases += len(recorder.get("cases", {}))
    if scenario["status"] == "error" and ("error", recorder["label"]) not in excluded:
        errors.append("%s: %s" % (recorder["label"], json.dumps(scenario)[:300]))
    for case_id, checks in recorder.get("checks", {}).items():
        for check in checks:
            if check["status"] != "failure":
                continue
            failure = check["failure_info"]["failure"]
            key = (check["name"], failure.get("operation") or recorder["label"])
            case = recorder.get("cases", {}).get(case_id, {}).get("value", {})
            if check["name"] == "positive_data_acceptance" and any(
                    TEMPLATE.match(str(v)) for v in (case.get("path_parameters") or {}).values()):
                unfilled += 1
                continue
            if check["name"] == "positive_data_acceptance":
                refused_positive += 1
            sample = {k: case.get(k) for k in ("method", "path_parameters", "query", "headers", "body") if case.get(k)}
            sample.get("headers", {}).pop("Authorization", None)
            findings.setdefault(key, (failure.get("code", ""), failure.get("title", ""), json.dumps(sample)[:400]))

unexcluded = sorted(key for key in findings if key not in excluded)
print("conformance: %d operations, %d cases, %d findings (%d excluded, %d not), %d errors"
      % (len(operations), cases, len(findings), len(findings) - len(unexcluded), len(unexcluded), len(errors)),
      file=sys.stderr)
print("  %d cases the document allows were refused" % refused_positive, file=sys.stderr)
if unfilled:
    print("  %d failed checks on cases whose path held an unfilled template, not counted" % unfilled, file=sys.stderr)
for key in sorted(findings):
    code, title, message = findings[key]
    verdict = "excluded: " + excluded[key] if key in excluded else "NOT EXCLUDED; a case: " + message
    print("  %s %s on %s: %s [%s]" % (code, key[0], key[1], title, verdict), file=sys.stderr)
for key in sorted(k for k in set(excluded) - set(findings) if k[0] != "error"):
    print("  exclusion matched nothing this run (drop it if fixed): %s on %s" % key, file=sys.stderr)
for error in errors:
    print("  error: " + error, file=sys.stderr)
if unexcluded or errors or (status != 0 and not findings and not unfilled):
    print("conformance: failed (Schemathesis exited %d)" % status, file=sys.stderr)
    sys.exit(1)
print("conformance: passed", file=sys.stderr)
