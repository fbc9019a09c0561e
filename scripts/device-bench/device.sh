#!/usr/bin/env bash
# On the bare device machine, as root, from the directory the bundle travelled in (package.sh or prepare packs it):
#
#   bash .perfcarry/device.sh [check]        # the default: one run of at most 8 minutes, unpacking included
#
# `check` re-measures, in the separate layout (PostgreSQL on the first half of the cores, the servers on the next
# quarter, wrk and pgbench on the last: 16 cores 0-7, 8-11, 12-15), in this order:
#   1. ingestion: scripts/bench phase (c), distinct App Store V2 notifications through SubLedger, ING_SECONDS (10)
#      at 64 connections, server pool ING_POOL (32), ING_NOTIFICATIONS (55000) pre-signed so the phase does not run
#      out below 5,500 notifications/s, on a ledger of ING_ACCOUNTS (= ING_NOTIFICATIONS: each notification renews
#      one account's chain, so the phase needs as many accounts as it has notifications), the report projector beside
#      it; ING_PHASES ("c"; "c d" adds pgbench on the same writes, ING_SECONDS more), ING_THREADS (as PEERS_THREADS).
#      The notifications are signed while the ledger loads (one core: about 20 s for 55,000).
#   2. reads beside the reference servers: ../shared/peers/bench-peers with PEERS_ACCOUNTS (20000), PEERS_ROUNDS (3)
#      rounds of PEERS_DURATION (8) s (shorter, down to PEERS_MIN_DURATION 5 s, then fewer rounds, when what is left
#      of the budget does not hold them), PEERS_CONNECTIONS (64), PEERS_THREADS (a quarter of the cores, 2 to 4):
#      medians and paired ratios.
# Each step runs under `timeout`, its limit what is left of BUDGET (470 s from the start) less what the later steps
# need; the rounds of step 2 are sized from the ledger's load rate measured in step 1. Both benches load their
# ledger with PostgreSQL on every core (the load is not measured) and pin it before anything is measured.
# $OUT gets summary.txt (the figures), device.log (this console), ingestion-separate.log and peers-separate.log,
# peers-separate.report.txt, peers-separate.rounds.tsv. CHECK_SIZE=small sets small sizes for a smoke test
# (4000 accounts, 5 s phases, 2 rounds of 4 s); every variable above overrides it.
#
# With fewer than 4 cores the separate layout degrades as scripts/bench's does: 3 cores one each; 2 cores
# PostgreSQL on cpu0, the servers on cpu1 and the load generators unpinned; 1 core is refused.
#
# Testing on the build machine (never unpack to its /: it has its own PostgreSQL 15 at those paths):
#   DEVICE_ROOT=/tmp/slroot    unpack under that directory instead of /, and run everything from there (PostgreSQL
#                              finds its share and lib relative to its bin, the libraries come through
#                              LD_LIBRARY_PATH); device.sh refuses to unpack to / where `swift` is installed.
#   SKIP_UNPACK=1              use what an earlier run unpacked under DEVICE_ROOT.
#   BASE_PORT, BENCH_PORT      bench-peers' and scripts/bench's ports (18180, 18080), where other runs use them.
# e.g. DEVICE_ROOT=/tmp/slroot OUT=/tmp/slout CHECK_SIZE=small bash .perfcarry/device.sh check
#
# The configurations of before, any number in one call, each bounded by BUDGET (580 s for these):
#   bash .perfcarry/device.sh SET:LAYOUT[:POOL] ...   e.g. new:shared:32 old:shared:32
# runs scripts/bench (ACCOUNTS, SECONDS_PER_PHASE from the environment: 100000 and 15 by default; NOTIFICATIONS,
# 60000) once per run, each on a fresh cluster, with the binaries of SET (/opt/sl/SET), BENCH_LAYOUT=LAYOUT and
# server pool POOL (32). To compare two builds, pack both as sets (package.sh SETS="old=DIR new=DIR") and name both.
# Logs go to $OUT/SET-LAYOUT.log.
#   bash .perfcarry/device.sh peers:LAYOUT[:SET] ...   e.g. peers:separate peers:shared
# runs ../shared/peers/bench-peers (packed with WITH_PEERS=1) with SET's binaries (new): SubLedger beside the
# reference servers. LAYOUT separate as above; shared pins nothing; 2cores runs everything (PostgreSQL, the servers,
# wrk, pgbench) on cores 0-1, as on the 2-core development machine but with nothing else running, with NIO's event
# loops and blocking pools sized to 2 in every Swift server (NIO_SINGLETON_*: NIO counts the cores online, not the
# affinity mask). PEERS_ROUNDS (3), PEERS_DURATION (10), PEERS_THREADS (4), PEERS_CONNECTIONS (64) and ACCOUNTS are
# its ROUNDS, DURATION, THREADS, CONNECTIONS, ACCOUNTS. Its report and rounds come back as
# $OUT/peers-LAYOUT.report.txt and $OUT/peers-LAYOUT.rounds.tsv.
set -uo pipefail
T0=$(date +%s)
OUT="${OUT:-/tmp/perfout}"; mkdir -p "$OUT"
HERE="$(cd "$(dirname "$0")" && pwd)"
[[ $# -eq 0 ]] && set -- check
CHECK=""; [[ "$1" == check ]] && CHECK=1
BUDGET="${BUDGET:-$([[ -n "$CHECK" ]] && echo 470 || echo 580)}"
ACCOUNTS="${ACCOUNTS:-100000}" SECONDS_PER_PHASE="${SECONDS_PER_PHASE:-15}"
elapsed() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( BUDGET - $(elapsed) )); }
exec > >(tee -a "$OUT/device.log") 2>&1

# Where the bundle lives: / on the device; a directory of its own when testing elsewhere.
DEVICE_ROOT="${DEVICE_ROOT:-/}"
R="${DEVICE_ROOT%/}"
SL="$R/opt/sl"
PGDIR="$R/usr/lib/postgresql/15"

echo "== machine"
nproc; uname -r; head -2 /etc/os-release; free -g | head -2
lscpu | grep -E 'Model name|Thread|Core|Socket|NUMA node' | head -6
if [[ -z "$R" && -z "${SKIP_UNPACK:-}" ]] && command -v swift >/dev/null 2>&1; then
    echo "error: this machine has a Swift toolchain: it looks like the build machine, and unpacking to / would overwrite"
    echo "       its /usr/lib/postgresql/15. To test here: DEVICE_ROOT=/tmp/slroot (a directory of its own) $0 $*"
    exit 64
fi
if [[ -n "${SKIP_UNPACK:-}" ]]; then
    echo "== not unpacking (SKIP_UNPACK): using $SL and $PGDIR"
    [[ -x "$SL/project/scripts/bench" && -x "$PGDIR/bin/postgres" ]] || { echo "error: nothing unpacked under ${R:-/}"; exit 66; }
else
    echo "== unpack to ${R:-/} ($(elapsed) s)"
    mkdir -p "${R:-/}" && chmod 755 "${R:-/}"
    if command -v xz >/dev/null; then timeout 120 xz -dc -T0 "$HERE/bundle.tar.xz"
    else timeout 120 python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$HERE/bundle.tar.xz"
    fi | tar -x --no-overwrite-dir -C "${R:-/}" || { echo "unpack failed"; exit 1; }
    # Binaries packed apart from the bundle (package.sh BINARIES_ONLY=1): SET.bin.tar.xz beside it replaces /opt/sl/SET.
    for f in "$HERE"/*.bin.tar.xz; do [[ -e "$f" ]] && xz -dc "$f" | tar -x -C "$SL" && echo "unpacked $(basename "$f")"; done
fi
[[ -e /usr/share/zoneinfo/UTC ]] || { mkdir -p /usr/share/zoneinfo && cp -a "$SL/zoneinfo/." /usr/share/zoneinfo/; }
# A packaged library only where the machine has none of that soname.
rm -rf "$SL/libuse"; mkdir -p "$SL/libuse"
ldconfig -p | awk 'NR > 1 { print $1 }' | sort -u >"$SL/syslibs"
for f in "$SL"/lib/*; do n="$(basename "$f")"; grep -qxF "$n" "$SL/syslibs" || ln -sf "$f" "$SL/libuse/$n"; done
export LD_LIBRARY_PATH="$SL/libuse" TZ=UTC
export PATH="$SL/bin:$PGDIR/bin:$PATH"
command -v curl >/dev/null || export PATH="$PATH:$SL/extra"
id postgres >/dev/null 2>&1 || useradd -m -s /bin/bash postgres
postgres -V && wrk -v 2>&1 | head -1
UNPACKED_S="$(elapsed)"
echo "== unpacked ($UNPACKED_S s)"

# The separate layout's core groups: PostgreSQL on the first half of the cores, the servers on the next quarter, the
# load generators on the last quarter. Fewer than 4 cores: as scripts/bench's BENCH_LAYOUT=separate, one each on 3,
# and on 2 PostgreSQL and the servers one each with the load generators unpinned (CORES_CLIENT empty).
CORES="$(nproc)"
CORES_ALL="0-$((CORES - 1))"
separate_cores() {
    if (( CORES >= 4 )); then
        CORES_PG="0-$((CORES / 2 - 1))" CORES_SERVER="$((CORES / 2))-$((CORES * 3 / 4 - 1))" CORES_CLIENT="$((CORES * 3 / 4))-$((CORES - 1))"
    elif (( CORES == 3 )); then
        CORES_PG=0 CORES_SERVER=1 CORES_CLIENT=2
    elif (( CORES == 2 )); then
        CORES_PG=0 CORES_SERVER=1 CORES_CLIENT=""
    else
        echo "== the separate layout needs at least 2 cores; this machine has $CORES"; return 1
    fi
    LAYOUT_TEXT="PostgreSQL on $CORES_PG, servers on $CORES_SERVER, wrk and pgbench on ${CORES_CLIENT:-every core (unpinned: $CORES cores leave them none of their own)}"
}

# bench-peers with the servers (and everything else it starts) on one core set, PostgreSQL on another and the
# load generators on a third: the script pins nothing itself, so pinned wrappers of pg_ctl, wrk and pgbench go
# first on PATH, and the script runs under taskset. The ledger's load (`subledger-bench load`, before anything is
# measured) runs on every core with PostgreSQL unpinned: pg_ctl's wrapper starts the postmaster on every core,
# and subledger-bench's wrapper (BIN_DIR is a folder of wrappers) pins the postmaster and every process it has
# forked to PostgreSQL's cores once the load is done; backends forked later inherit that.
# run_peers LAYOUT SET ACCOUNTS ROUNDS SECONDS_ALLOWED
run_peers() {
    local layout="$1" set="${2:-new}" accounts="$3" rounds="$4" allowed="$5" pin=() path="$PATH" nio=()
    local dir="/tmp/peers-$layout" log="$OUT/peers-$layout.log" bin="$SL/$set"
    [[ -x "$SL/peers/bench-peers" ]] || { echo "== no bench-peers in the bundle (WITH_PEERS=1)"; return 1; }
    case "$layout" in
        shared) ;;
        2cores)
            pin=(taskset -c 0-1)
            nio=(NIO_SINGLETON_GROUP_LOOP_COUNT=2 NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT=2)
            echo "   everything on cores 0-1" ;;
        separate)
            separate_cores || return 1
            local client="${CORES_CLIENT:-$CORES_ALL}" wrap="$SL/pinned" real_bench="$bin/subledger-bench"
            bin="$SL/pinned-$set"
            rm -rf "$wrap" "$bin"; mkdir -p "$wrap" "$bin"
            printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v initdb)" >"$wrap/initdb"
            printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$CORES_ALL" "$(command -v pg_ctl)" >"$wrap/pg_ctl"
            printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$client" "$(command -v wrk)" >"$wrap/wrk"
            printf '#!/bin/sh\nexec taskset -c %s %s "$@"\n' "$client" "$(command -v pgbench)" >"$wrap/pgbench"
            cat >"$wrap/pin-postgres" <<PIN
#!/usr/bin/env bash
# Pins the postmaster of \$PGHOST's cluster and every process it has forked to $CORES_PG.
postmaster="\$(head -1 "\$(dirname "\$PGHOST")/data/postmaster.pid")" || exit 70
taskset -a -p -c $CORES_PG "\$postmaster" >/dev/null || { echo "error: could not pin the postmaster \$postmaster" >&2; exit 70; }
for pid in \$(cat "/proc/\$postmaster/task/\$postmaster/children"); do
    taskset -a -p -c $CORES_PG "\$pid" >/dev/null 2>&1 || [[ ! -e "/proc/\$pid" ]] || { echo "error: could not pin \$pid" >&2; exit 70; }
done
echo "   PostgreSQL pinned to $CORES_PG after the load (postmaster \$postmaster)" >&2
PIN
            # shellcheck disable=SC2016 # the wrapper's own "$1" and "$@"
            printf '#!/bin/sh\nif [ "$1" = load ]; then\n    taskset -c %s %s "$@" || exit $?\n    exec %s\nfi\nexec %s "$@"\n' \
                "$CORES_ALL" "$real_bench" "$wrap/pin-postgres" "$real_bench" >"$bin/subledger-bench"
            chmod 755 "$wrap"/* "$bin/subledger-bench"
            ln -s "$SL/$set/subledger" "$bin/subledger"
            # bench-peers waits for binaries younger than 30 s to stop changing.
            touch -d '1 hour ago' "$bin/subledger-bench"; touch -h -d '1 hour ago' "$bin/subledger"
            path="$wrap:$PATH" pin=(taskset -c "$CORES_SERVER")
            echo "   $LAYOUT_TEXT; the ledger's load on every core" ;;
        *) echo "== unknown layout $layout"; return 1 ;;
    esac
    echo "== run peers:$layout at $(elapsed) s: $accounts accounts, $rounds rounds of ${PEERS_DURATION}s, at most $allowed s"
    rm -rf "$dir"
    ( cd "$SL/project" && timeout -k 20 -s TERM "$allowed" env "${nio[@]}" PATH="$path" OUT_DIR="$dir" ACCOUNTS="$accounts" \
        ROUNDS="$rounds" DURATION="$PEERS_DURATION" THREADS="${PEERS_THREADS:-4}" \
        CONNECTIONS="${PEERS_CONNECTIONS:-64}" PEER_SWIFT="$SL/peers/peer-hummingbird" PEER_RUST="$SL/peers/peer-hyper" \
        "${pin[@]}" bash "$SL/peers/bench-peers" "$bin" ) 2>&1 \
        | while IFS= read -r line; do printf '%s %s\n' "$(date +%T)" "$line"; done >"$log"
    local status="${PIPESTATUS[0]}"
    cp "$dir/report.txt" "$OUT/peers-$layout.report.txt" 2>/dev/null
    cp "$dir/rounds.tsv" "$OUT/peers-$layout.rounds.tsv" 2>/dev/null
    sed -n '/^Entitlement reads,/,$p' "$dir/report.txt" 2>/dev/null | head -50
    tail -3 "$log"
    (( status == 124 )) && echo "== peers:$layout stopped at its limit of $allowed s"
    return "$status"
}

# run_bench SET LAYOUT POOL ACCOUNTS SECONDS NOTIFICATIONS SECONDS_ALLOWED LOG [VAR=value ...]: scripts/bench once.
run_bench() {
    local set="$1" layout="$2" pool="$3" accounts="$4" seconds="$5" notifications="$6" allowed="$7" log="$8"
    shift 8
    ( cd /tmp && timeout -k 20 -s TERM "$allowed" env BENCH_LAYOUT="$layout" BENCH_POOL_SIZE="$pool" \
        BENCH_NOTIFICATIONS="$notifications" SUBLEDGER_BIN_DIR="$SL/$set" "$@" \
        bash "$SL/project/scripts/bench" "$accounts" "$seconds" ) 2>&1 \
        | while IFS= read -r line; do printf '%s %s\n' "$(date +%T)" "$line"; done >"$log"
    return "${PIPESTATUS[0]}"
}

# --- check: one run of ingestion and bench-peers in the separate layout ---------------------------------------
# Seconds from scripts/bench's "== setup" line to its "N chains, ..." line in a log of timestamped lines.
ledger_setup_seconds() {
    awk '/ == setup: / { a = $1 } / [0-9]+ chains, [0-9]+ transactions, / && a != "" { b = $1 }
        END { if (a == "" || b == "") exit; split(a, x, ":"); split(b, y, ":")
              d = (y[1] * 3600 + y[2] * 60 + y[3]) - (x[1] * 3600 + x[2] * 60 + x[3]); if (d < 0) d += 86400; print d }' "$1" 2>/dev/null
}
run_check() {
    local set="${CHECK_SET:-new}" small="" work="${CHECK_WORK:-/tmp/sl-check}"
    [[ "${CHECK_SIZE:-}" == small ]] && small=1
    local ing_notifications="${ING_NOTIFICATIONS:-$([[ -n "$small" ]] && echo 4000 || echo 55000)}"
    local ing_accounts="${ING_ACCOUNTS:-$ing_notifications}"
    local ing_seconds="${ING_SECONDS:-$([[ -n "$small" ]] && echo 5 || echo 10)}"
    local ing_phases="${ING_PHASES:-c}" ing_pool="${ING_POOL:-32}"
    local peers_accounts="${PEERS_ACCOUNTS:-$([[ -n "$small" ]] && echo 4000 || echo 20000)}"
    local peers_rounds="${PEERS_ROUNDS:-$([[ -n "$small" ]] && echo 2 || echo 3)}"
    PEERS_DURATION="${PEERS_DURATION:-$([[ -n "$small" ]] && echo 4 || echo 8)}"
    separate_cores || return 1
    local client_cores=$(( CORES / 4 )); (( client_cores < 2 )) && client_cores=2; (( client_cores > 4 )) && client_cores=4
    PEERS_THREADS="${PEERS_THREADS:-$client_cores}"
    local ing_threads="${ING_THREADS:-$client_cores}"
    (( ing_notifications > ing_accounts )) && ing_notifications=$ing_accounts
    [[ -x "$SL/$set/subledger" ]] || { echo "== no binary set $set"; return 1; }
    rm -rf "$work"; mkdir -p "$work"
    echo "== check on $CORES cores: $LAYOUT_TEXT; budget $BUDGET s, $(left) s left"

    # What bench-peers needs besides its rounds: its ledger's load (at LOAD_RATE accounts/s, 400 until step 1 has
    # measured this machine's), about 15 s of setup and answers, and a 3-second warm-up of each of its 4 servers;
    # each round runs 9 phases (4 servers' reads, 4 floors, pgbench) of PEERS_DURATION and about 1.5 s between them.
    local summary_reserve=15 per_round=$(( 9 * PEERS_DURATION + 14 ))
    peers_fixed() { echo $(( peers_accounts / $1 + 15 + 12 )); }

    # 1. ingestion: what is left less bench-peers with 2 rounds at the cautious load rate.
    local peers_min=$(( $(peers_fixed 400) + 2 * per_round + summary_reserve ))
    local allowed=$(( $(left) - peers_min ))
    local ing_start ing_status=skipped ing_log="$OUT/ingestion-separate.log"
    ING_S=0
    if (( allowed < 60 )); then
        echo "== skip ingestion: $allowed s would be left for it"
    else
        echo "== ingestion at $(elapsed) s: scripts/bench phases '$ing_phases', $ing_accounts accounts, $ing_notifications notifications, ${ing_seconds}s, pool $ing_pool, at most $allowed s"
        ing_start=$(date +%s)
        # shellcheck disable=SC2086 # EXTRA_ENV is VAR=value words
        run_bench "$set" separate "$ing_pool" "$ing_accounts" "$ing_seconds" "$ing_notifications" "$allowed" "$ing_log" \
            BENCH_PHASES="$ing_phases" BENCH_THREADS="$ing_threads" BENCH_NOTIFICATIONS_DIR="$work/notes" ${EXTRA_ENV:-}
        ing_status=$?
        ING_S=$(( $(date +%s) - ing_start ))
        echo "== ingestion took $ING_S s (status $ing_status)"
        sed -n '/SubLedger benchmark:/,$p' "$ing_log" | cut -c10- | head -30
        (( ing_status == 0 )) || tail -5 "$ing_log"
    fi

    # 2. bench-peers: rounds from what is left, its load at the rate step 1 measured (the whole setup of its ledger,
    # from scripts/bench's "== setup" line to its "N chains" line: the applies, the reports' projection, VACUUM).
    local rate=400 setup_s
    setup_s="$(ledger_setup_seconds "$ing_log")"
    if [[ -n "$setup_s" ]] && (( setup_s > 0 )); then rate=$(( ing_accounts / setup_s )); (( rate < 20 )) && rate=20; fi
    local fixed rounds
    fixed="$(peers_fixed "$rate")"
    local avail=$(( $(left) - summary_reserve - fixed ))
    rounds=$(( avail / per_round ))
    (( rounds > peers_rounds )) && rounds=$peers_rounds
    # Short of time, shorter rounds (down to PEERS_MIN_DURATION, 5 s) rather than fewer: the paired ratios need them.
    if (( rounds < peers_rounds )); then
        local shorter=$(( (avail / peers_rounds - 14) / 9 ))
        if (( shorter >= ${PEERS_MIN_DURATION:-5} )); then
            echo "== rounds of ${shorter}s instead of ${PEERS_DURATION}s, for $peers_rounds rounds in what is left ($(left) s)"
            PEERS_DURATION=$shorter rounds=$peers_rounds
        fi
    fi
    local peers_status=skipped
    PEERS_S=0
    if (( rounds < 1 )); then
        echo "== skip bench-peers: $(left) s left, its load and setup need about $fixed s and a round $per_round s"
    else
        (( rounds < peers_rounds )) && echo "== only $rounds of $peers_rounds rounds fit in what is left ($(left) s)"
        local peers_start; peers_start=$(date +%s)
        run_peers separate "$set" "$peers_accounts" "$rounds" $(( $(left) - summary_reserve ))
        peers_status=$?
        PEERS_S=$(( $(date +%s) - peers_start ))
        echo "== bench-peers took $PEERS_S s (status $peers_status)"
    fi

    # 3. the summary, from the logs and the rounds (a run stopped at its limit still leaves its finished rounds).
    python3 - "$OUT/summary.txt" "$ing_log" "$OUT/peers-separate.log" "$OUT/peers-separate.rounds.tsv" <<PY
import re, statistics, sys
out, ing_log, peers_log, rounds_path = sys.argv[1:]
def read(path):
    try: return [line.rstrip("\n")[9:] if re.match(r"\d\d:\d\d:\d\d ", line) else line.rstrip("\n") for line in open(path)]
    except OSError: return []
def num(text, name):
    m = re.search(r"\b" + name + r"=([0-9.]+)", text or "")
    return float(m.group(1)) if m else None
lines = []
p = lines.append
p("SubLedger device-bench check: $CORES cores ($(lscpu | sed -n 's/^Model name: *//p' | head -1)), $(date -u +%FT%TZ)")
p("layout separate: $LAYOUT_TEXT")
p("times: unpack $UNPACKED_S s; ingestion $ING_S s (status $ing_status); bench-peers $PEERS_S s (status $peers_status); "
  "total $(elapsed) s of a budget of $BUDGET s")
p("")
ing = read(ing_log)
text = "\n".join(ing)
load = re.search(r"loaded (\d+) accounts, \d+ transactions in (\d+) s", text)
projected = re.search(r"projected the reports' aggregates in ([0-9.]+) s", text)
signed = re.search(r"wrote (\d+) notifications \((\d+) bytes each\)", text)
p("1. ingestion (scripts/bench phase (c): distinct App Store V2 notifications), $ing_accounts accounts, "
  "$ing_notifications notifications, ${ing_seconds}s at 64 connections, server pool $ing_pool, wrk threads $ing_threads")
setup = int("${setup_s:-0}")
if setup: p(f"   ledger set up in {setup} s ({$ing_accounts // setup} accounts/s, PostgreSQL on every core)"
                 + (f": applies {load.group(2)} s" if load else "") + (f", the reports' projection {float(projected.group(1)):.0f} s" if projected else ""))
if signed: p(f"   {signed.group(1)} notifications pre-signed ({signed.group(2)} bytes each) while it loaded")
for phase, label in (("c", "(c) V2 notifications"), ("d", "(d) the same writes, pgbench")):
    start = next((i for i, l in enumerate(ing) if l.startswith(f"== ({phase})")), None)
    if start is None: continue
    result = next((l for l in ing[start:start + 8] if "RESULT" in l), "")
    cpu = next((l.strip() for l in ing[start:start + 8] if "CPU ms per request" in l), "")
    if phase == "c":
        applied, d = num(result, "applied"), num(result, "duration_us")
        rate = applied / (d / 1e6) if applied is not None and d else None
        p(f"   {label}: {rate:,.0f} notifications/s" if rate is not None else f"   {label}: no result")
        if result:
            p(f"   p50 {num(result, 'p50_us') / 1000:.1f} ms, p99 {num(result, 'p99_us') / 1000:.1f} ms; not applied {num(result, 'other'):.0f};"
              f" ran out of notifications: {'YES: a lower bound, raise ING_NOTIFICATIONS' if (num(result, 'exhausted') or 0) > 0 else 'no'}")
    else:
        p(f"   {label}: {num(result, 'tps') or 0:,.0f} transactions/s")
    if cpu: p("   " + cpu.replace("CPU ms per request:", "CPU ms per notification:" if phase == "c" else "CPU ms per transaction:"))
for l in ing:
    if l.strip().startswith("projection:"): p("   report projector beside (c): " + l.strip())
targets = [l for l in ing if re.match(r"\s+(pass|FAIL)\s", l)]
if targets:
    p("   targets:"); [p("   " + t) for t in targets]
if not ing: p("   did not run")
elif "$ing_status" != "0": p("   the run did not finish (status $ing_status): see ingestion-separate.log")
p("")
p("2. reads beside the reference servers (bench-peers), $peers_accounts accounts, rounds of ${PEERS_DURATION}s, "
  "${PEERS_CONNECTIONS:-64} connections, wrk threads $PEERS_THREADS, pools 16")
peers = read(peers_log)
for l in peers:
    m = re.search(r"entitlement periods.*; (\d+) s\$", l)
    if m: p(f"   ledger set up in {m.group(1)} s: {l.strip().rsplit(';', 1)[0]}")
try:
    import csv
    rows = list(csv.DictReader(open(rounds_path), delimiter="\t"))
except OSError:
    rows = []
if rows:
    phases = list(dict.fromkeys(r["phase"] for r in rows))
    nrounds = len({r["round"] for r in rows})
    def med(ph, col):
        v = [float(r[col]) for r in rows if r["phase"] == ph and r[col] not in ("-", "")]
        return statistics.median(v) if v else None
    def f(v, spec): return "-" if v is None else format(v, spec)
    p(f"   medians of {nrounds} round(s):")
    p("   %-19s %8s %7s %7s %8s %8s %6s" % ("phase", "req/s", "p50 ms", "p99 ms", "srv ms", "PG ms", "other"))
    for ph in phases:
        p("   %-19s %8s %7s %7s %8s %8s %6s" % (ph, f(med(ph, "rps"), ".0f"), f(med(ph, "p50_ms"), ".2f"), f(med(ph, "p99_ms"), ".2f"),
          f(med(ph, "server_ms"), ".4f"), f(med(ph, "pg_ms"), ".4f"), f(med(ph, "other_cores"), ".2f")))
    by = {}
    for r in rows: by.setdefault(r["round"], {})[r["phase"]] = r
    def paired(a, b, col):
        v = [float(x[a][col]) / float(x[b][col]) for x in by.values() if a in x and b in x
             and x[a][col] not in ("-", "") and x[b][col] not in ("-", "") and float(x[b][col]) > 0]
        return f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})" if v else "-"
    p("   SubLedger ÷ peer, paired within each round, median (range) over rounds:")
    for peer in ("hummingbird", "hummingbird-el", "hyper", "pgbench"):
        if peer in phases and "subledger" in phases:
            p(f"     ÷ {peer:<15} req/s {paired('subledger', peer, 'rps')}, p99 {paired('subledger', peer, 'p99_ms')}, "
              f"server CPU {paired('subledger', peer, 'server_ms')}, PG CPU {paired('subledger', peer, 'pg_ms')}")
    if "subledger-live" in phases and "hummingbird-live" in phases:
        p(f"     router's floor (/health/live server CPU) ÷ Hummingbird's: {paired('subledger-live', 'hummingbird-live', 'server_ms')}")
else:
    p("   no rounds" + ("" if peers else ": did not run"))
for l in dict.fromkeys(l for l in peers if l.startswith("AGREE") or "DIFFERS" in l or l.startswith("error")):
    p("   " + l.strip())
if "$peers_status" not in ("0", "skipped"): p("   the run did not finish (status $peers_status): see peers-separate.log")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
    [[ "$ing_status" == 0 && "$peers_status" == 0 ]]
}

if [[ -n "$CHECK" ]]; then
    echo "== check at $(elapsed) s"
    run_check
    status=$?
    echo "== done at $(elapsed) s (status $status)"
    exit "$status"
fi

for run in "$@"; do
    if [[ "$run" == peers:* ]]; then
        IFS=: read -r _ layout set <<<"$run"
        PEERS_DURATION="${PEERS_DURATION:-10}"
        run_peers "$layout" "$set" "$ACCOUNTS" "${PEERS_ROUNDS:-3}" $(( $(left) - 5 ))
        continue
    fi
    IFS=: read -r set layout pool <<<"$run"
    pool="${pool:-32}"
    log="$OUT/$set-$layout.log"
    if (( $(left) < ${NEED:-150} )); then echo "== skip $run: $(left) s left"; continue; fi
    [[ -x "$SL/$set/subledger" ]] || { echo "== no binary set $set"; continue; }
    echo "== run $run at $(elapsed) s ($(left) s left)"
    start=$(date +%s)
    # shellcheck disable=SC2086 # EXTRA_ENV is VAR=value words
    run_bench "$set" "$layout" "$pool" "$ACCOUNTS" "$SECONDS_PER_PHASE" "${NOTIFICATIONS:-60000}" $(( $(left) - 5 )) "$log" \
        BENCH_NOTIFICATIONS_DIR=/tmp/notes ${EXTRA_ENV:-}
    NEED=$(( $(date +%s) - start + 5 ))
    echo "== $run took $(( $(date +%s) - start )) s"
    sed -n '/SubLedger benchmark:/,$p' "$log" | cut -c10- | head -40
    tail -3 "$log"
done
echo "== done at $(elapsed) s"
