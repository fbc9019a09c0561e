#!/usr/bin/env python3
"""Entitlement reads while scripts/citus-test's load runs: what a worker's outage does to reads.

    reads.py WORKDIR KEY PORT[,PORT...] RATE ACCOUNTS

Reads GET /v1/accounts/acct-N/entitlements (N cycling through 1..ACCOUNTS, the bench ledger's accounts) at about
RATE requests per second, spread over the serve ports given, each once (a read is not retried), until
WORKDIR/stop exists. Writes WORKDIR/reads.tsv: one line per read, unix time when answered, the status or the
client error, whether a Retry-After header came with it.
"""
import http.client
import os
import sys
import time

workdir, key, ports, rate, accounts = sys.argv[1], sys.argv[2], sys.argv[3].split(","), float(sys.argv[4]), int(sys.argv[5])
REQUEST_TIMEOUT = 30.0

connections = {}


def read(port, account):
    try:
        connection = connections.get(port)
        if connection is None:
            connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=REQUEST_TIMEOUT)
            connections[port] = connection
        connection.request("GET", f"/v1/accounts/acct-{account}/entitlements", headers={"Authorization": f"Bearer {key}"})
        response = connection.getresponse()
        response.read()
        return str(response.status), response.getheader("Retry-After") is not None
    except (OSError, http.client.HTTPException) as error:
        connections.pop(port, None)
        return "timeout" if isinstance(error, TimeoutError) else "connection_error:" + type(error).__name__, False


with open(os.path.join(workdir, "reads.tsv"), "a") as out:
    n = 0
    interval = 1.0 / rate
    next_at = time.time()
    while not os.path.exists(os.path.join(workdir, "stop")):
        status, retry_after = read(ports[n % len(ports)], n % accounts + 1)
        out.write(f"{time.time():.3f}\t{status}\t{1 if retry_after else 0}\n")
        out.flush()
        n += 1
        next_at += interval
        time.sleep(max(0.0, next_at - time.time()))
