#!/usr/bin/env python3
"""A fast webhook receiver for scripts/bench-webhooks: asyncio, HTTP/1.1 keep-alive, answers 204.

    receiver.py PORT STATS_FILE [SECRET]

Counts requests, verifies each SubLedger-Signature when SECRET is given (HMAC-SHA256 of "t." + body), and
records when each event arrived, keyed by its cause id (the notification UUID for a notification's event).
On SIGTERM/SIGINT it writes STATS_FILE as JSON: received, bad_signatures, first, last (unix seconds, float),
arrivals {cause_id: unix seconds} and event_ids (distinct count).
"""
import asyncio
import hashlib
import hmac
import json
import signal
import sys
import time

port, stats_file = int(sys.argv[1]), sys.argv[2]
secret = sys.argv[3].encode() if len(sys.argv) > 3 else None
stats = {"received": 0, "bad_signatures": 0, "first": None, "last": None, "arrivals": {}}
event_ids = set()


def verified(header, body):
    if secret is None:
        return True
    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
    signatures = [p.split("=", 1)[1] for p in header.split(",") if p.startswith("v1=")]
    expected = hmac.new(secret, parts.get("t", "").encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, s) for s in signatures)


def record(headers, body):
    now = time.time()
    stats["received"] += 1
    stats["first"] = stats["first"] or now
    stats["last"] = now
    if not verified(headers.get("subledger-signature", ""), body):
        stats["bad_signatures"] += 1
        return
    event_ids.add(headers.get("subledger-event-id"))
    try:
        cause = json.loads(body).get("cause") or {}
        if cause.get("id") and cause["id"] not in stats["arrivals"]:
            stats["arrivals"][cause["id"]] = now
    except ValueError:
        pass


async def serve(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            headers = {}
            for line in lines[1:]:
                if ":" in line:
                    name, value = line.split(":", 1)
                    headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            record(headers, body)
            writer.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", port, backlog=1024)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()
    stats["event_ids"] = len(event_ids)
    with open(stats_file, "w") as out:
        json.dump(stats, out)


asyncio.run(main())
