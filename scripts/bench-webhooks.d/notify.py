#!/usr/bin/env python3
"""Posts pre-signed App Store notifications at a constant rate and records when each was accepted.

    notify.py URL BODIES_JSONL RATE SECONDS OUT_JSON

Each line of BODIES_JSONL is a request body ({"signedPayload": "<JWS>"}); its notificationUUID is read from the
JWS payload. OUT_JSON gets {notification_uuid: unix seconds when the 200 answer arrived} and counts.
"""
import base64
import concurrent.futures
import http.client
import json
import sys
import threading
import time
import urllib.parse

url, bodies_file, rate, seconds, out_file = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
target = urllib.parse.urlsplit(url)
bodies = []
with open(bodies_file) as lines:
    for line in lines:
        line = line.strip()
        if not line:
            continue
        payload = json.loads(line)["signedPayload"].split(".")[1]
        payload += "=" * (-len(payload) % 4)
        bodies.append((json.loads(base64.urlsafe_b64decode(payload))["notificationUUID"], line))
count = min(len(bodies), int(rate * seconds))
accepted, failed = {}, [0]
local = threading.local()
lock = threading.Lock()


def post(item):
    uuid, body = item
    if not hasattr(local, "connection"):
        local.connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    try:
        local.connection.request("POST", target.path, body, {"Content-Type": "application/json"})
        response = local.connection.getresponse()
        response.read()
        with lock:
            if response.status == 200:
                accepted[uuid] = time.time()
            else:
                failed[0] += 1
    except Exception:
        local.connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        with lock:
            failed[0] += 1


start = time.time()
with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
    for index in range(count):
        delay = start + index / rate - time.time()
        if delay > 0:
            time.sleep(delay)
        pool.submit(post, bodies[index])
with open(out_file, "w") as out:
    json.dump({"accepted": accepted, "failed": failed[0], "sent": count, "seconds": time.time() - start}, out)
