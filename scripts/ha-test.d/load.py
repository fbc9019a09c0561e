#!/usr/bin/env python3
"""Steady write load for scripts/ha-test: signed purchases and notifications, posted until told to stop.

    load.py WORKDIR KEY PORT[,PORT...] RATE

Reads WORKDIR/notifications.jsonl (POST /v1/notifications/appstore) and WORKDIR/purchases.jsonl
(POST /v1/transactions with the API key KEY), alternating, at about RATE requests per second spread over
the serve ports given. A request that is not acknowledged is retried with the same body (every write is
idempotent: a notification by its UUID, a purchase by its transaction id) after 0.25 s, not after the
Retry-After the service advertised: the gap this measures is the service's, not a client's back-off.
Stops when WORKDIR/stop exists, or when the bodies run out.

Writes WORKDIR/acks.tsv (one line per acknowledged write: unix time, kind, the transaction id it carried)
and WORKDIR/responses.tsv (one line per answer that was not an acknowledgment: unix time, status or the
client error, whether a Retry-After header came with it, seconds the request took).
"""
import base64
import http.client
import json
import os
import queue
import sys
import threading
import time

workdir, key, ports, rate = sys.argv[1], sys.argv[2], sys.argv[3].split(","), float(sys.argv[4])
REQUEST_TIMEOUT = 30.0
RETRY_DELAY = 0.25


def transaction_id_of_notification(body):
    # The renewal's transaction id sits in the signed transaction inside the signed payload; decoding the
    # JWS payloads (no verification: the service verifies) gives the id the ledger check looks for.
    def payload(jws):
        part = jws.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    outer = payload(json.loads(body)["signedPayload"])
    return payload(outer["data"]["signedTransactionInfo"])["transactionId"]


def transaction_id_of_purchase(body):
    jws = json.loads(body)["signed_transaction"]
    part = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))["transactionId"]


work = queue.Queue()
with open(os.path.join(workdir, "notifications.jsonl")) as n, open(os.path.join(workdir, "purchases.jsonl")) as p:
    notifications, purchases = n.read().splitlines(), p.read().splitlines()
for index in range(max(len(notifications), len(purchases))):
    if index < len(notifications):
        work.put(("notification", notifications[index]))
    if index < len(purchases):
        work.put(("purchase", purchases[index]))

lock = threading.Lock()
acks = open(os.path.join(workdir, "acks.tsv"), "a", buffering=1)
responses = open(os.path.join(workdir, "responses.tsv"), "a", buffering=1)
stop_file = os.path.join(workdir, "stop")
pacing = threading.Semaphore(0)


def stopped():
    return os.path.exists(stop_file)


def post(port, kind, body):
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=REQUEST_TIMEOUT)
    try:
        if kind == "notification":
            path, headers = "/v1/notifications/appstore", {"Content-Type": "application/json"}
        else:
            path = "/v1/transactions"
            headers = {"Content-Type": "application/json", "Authorization": "Bearer " + key}
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read()
        return str(response.status), response.getheader("Retry-After") is not None, text
    finally:
        connection.close()


def worker(number):
    turn = number
    while not stopped():
        try:
            kind, body = work.get_nowait()
        except queue.Empty:
            return
        transaction_id = (transaction_id_of_notification if kind == "notification" else transaction_id_of_purchase)(body)
        pacing.acquire()
        while True:
            port = ports[turn % len(ports)]
            turn += 1
            started = time.time()
            try:
                status, retry_after, text = post(port, kind, body)
            except TimeoutError:
                status, retry_after, text = "timeout", False, b""
            except OSError as error:
                status, retry_after, text = "connection_error:" + type(error).__name__, False, b""
            took = time.time() - started
            if status == "200":
                with lock:
                    acks.write(f"{time.time():.3f}\t{kind}\t{transaction_id}\n")
                break
            with lock:
                responses.write(f"{time.time():.3f}\t{status}\t{int(retry_after)}\t{took:.3f}\t{kind}\t"
                                f"{text[:200].decode('utf-8', 'replace').replace(chr(9), ' ').replace(chr(10), ' ')}\n")
            if stopped():
                return
            time.sleep(RETRY_DELAY)


threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(16)]
for thread in threads:
    thread.start()
interval = 1.0 / rate
next_tick = time.time()
while not stopped() and any(thread.is_alive() for thread in threads):
    pacing.release()
    next_tick += interval
    time.sleep(max(0.0, next_tick - time.time()))
for _ in threads:
    pacing.release()
for thread in threads:
    thread.join(timeout=REQUEST_TIMEOUT + 5)
