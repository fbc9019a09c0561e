#!/usr/bin/env python3
"""The soak driver behind scripts/soak (read that script's header first). Python 3 standard library only.

It owns every process of the run (PostgreSQL, appstore-sim, two `subledger serve`, `subledger poll`), runs the
webhook receiver and the balancer in threads of its own, drives the load, injects the faults on a schedule,
settles, checks and prints the table. Everything lives in one temporary directory.
"""
import base64
import collections
import http.client
import http.server
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

MINUTES = int(os.environ.get("SOAK_MINUTES", "20"))
ACCOUNTS = int(os.environ.get("SOAK_ACCOUNTS", "120"))
SEED = int(os.environ.get("SOAK_SEED", "1"))
PORT_BASE = int(os.environ.get("SOAK_PORT_BASE", "27600"))
KEEP = os.environ.get("SOAK_KEEP", "") not in ("", "0")
BIN = os.environ["SUBLEDGER_BIN_DIR"]
PG_BIN = os.environ["SOAK_PG_BIN"]

BUNDLE = "com.example.soak"
SHARED_SECRET = "soak-shared-secret"
PG_PORT, SIM_PORT, SERVE_PORTS, BALANCER_PORT, RECEIVER_PORT = (
    PORT_BASE, PORT_BASE + 1, [PORT_BASE + 2, PORT_BASE + 3], PORT_BASE + 4, PORT_BASE + 5)
SIM = f"http://127.0.0.1:{SIM_PORT}"
CLOCK_STEP_HOURS = 12         # the simulator's clock moves 12 hours ...
CLOCK_STEP_SECONDS = 2.0      # ... every 2 seconds: a month of renewals every 2 minutes (Apple's retries of a
                              # failed notification, 1 to 72 hours after it, then span 12 seconds)
SUBMIT_GIVE_UP_SECONDS = 300  # an input not acknowledged within this is reported (and fails the run)
SETTLE_LIMIT_SECONDS = 600

# The fault schedule: one phase after another, round and round, for SOAK_MINUTES.
PHASES = ["baseline", "serve_kill", "poll_kill", "postgres_restart", "apple_down", "apple_slow", "apple_faulty",
          "webhook_500"]

started_at = time.time()
work = tempfile.mkdtemp(prefix="subledger-soak.")
os.chmod(work, 0o755)
as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
stopping = threading.Event()
lock = threading.Lock()


def log(message):
    print(f"[{time.time() - started_at:7.1f}s] {message}", flush=True)


# ---------------------------------------------------------------------------------------------------------------
# HTTP

def call(method, url, body=None, headers=None, timeout=30.0):
    """One request; answers (status, parsed JSON or raw bytes, headers); status is a string like 'conn_error'
    when no answer came."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    try:
        connection.request(method, parts.path + (("?" + parts.query) if parts.query else ""), body=data,
                           headers={"Content-Type": "application/json", **(headers or {})})
        response = connection.getresponse()
        raw = response.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw
        return response.status, parsed, dict(response.getheaders())
    except TimeoutError:
        return "timeout", None, {}
    except OSError:
        return "conn_error", None, {}
    finally:
        connection.close()


def sim(method, path, body=None):
    status, parsed, _ = call(method, SIM + path, body)
    return status, parsed


def jws_payload(jws):
    part = jws.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


# ---------------------------------------------------------------------------------------------------------------
# Processes

class Process:
    """A child process restarted under the same name; remembers its RSS when first and last measured."""

    def __init__(self, name, argv, env):
        self.name, self.argv, self.env = name, argv, env
        self.popen = None
        self.starts = 0
        self.rss_start = None
        self.rss_end = None

    def start(self):
        logfile = open(os.path.join(work, self.name + ".log"), "a")
        self.popen = subprocess.Popen(self.argv, env=self.env, stdout=logfile, stderr=subprocess.STDOUT, cwd=work)
        self.starts += 1

    def kill9(self):
        self.popen.send_signal(signal.SIGKILL)
        self.popen.wait()

    def stop(self):
        if self.popen and self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()

    def pid(self):
        return self.popen.pid if self.popen and self.popen.poll() is None else None


def rss_megabytes(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run(argv, env=None, check=True, capture=False):
    result = subprocess.run(argv, env=env, cwd=work, text=True, capture_output=True)
    if check and result.returncode != 0:
        raise SystemExit(f"error: {' '.join(argv)} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return result.stdout if capture else result


class Postgres:
    def __init__(self):
        self.data = os.path.join(work, "pg", "data")
        self.socket = os.path.join(work, "pg")
        self.log = os.path.join(work, "pg", "postgres.log")
        self.url = f"postgresql:///subledger?host={self.socket}&port={PG_PORT}&user=postgres"
        self.rss_start = None
        self.rss_end = None
        self.restarts = 0

    def ctl(self, *args):
        run(as_postgres + [os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-l", self.log, "-w", *args])

    def start(self):
        os.makedirs(self.socket)
        if as_postgres:
            shutil.chown(self.socket, "postgres", "postgres")
        run(as_postgres + [os.path.join(PG_BIN, "initdb"), "-D", self.data, "-U", "postgres", "--auth=trust",
                           "-E", "UTF8", "--locale=C"])
        self.ctl("-o", f"-k {self.socket} -p {PG_PORT} -c listen_addresses='' -c max_connections=100", "start")
        self.psql("postgres", "CREATE DATABASE subledger")

    def restart_immediate(self):
        self.ctl("-m", "immediate", "restart")
        self.restarts += 1

    def stop(self):
        subprocess.run(as_postgres + [os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-m", "immediate", "-w",
                                      "stop"], cwd=work, capture_output=True)

    def postmaster_pid(self):
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as pidfile:
                return int(pidfile.readline())
        except (OSError, ValueError):
            return None

    def psql(self, database, sql):
        psql = os.path.join(PG_BIN, "psql") if os.path.exists(os.path.join(PG_BIN, "psql")) else "psql"
        out = run([psql, "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1",
                   "-d", self.url.replace("/subledger?", f"/{database}?"), "-c", sql], capture=True)
        return [line.split("\t") for line in out.splitlines() if line]


# ---------------------------------------------------------------------------------------------------------------
# The webhook receiver and the balancer in front of both `serve` (where the simulator posts notifications)

class Receiver:
    failing = False
    received = collections.Counter()   # event id -> 2xx answers given
    refused = 0


class ReceiverHandler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            if Receiver.failing:
                Receiver.refused += 1
                status = 500
            else:
                Receiver.received[json.loads(body)["id"]] += 1
                status = 200
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


class BalancerHandler(http.server.BaseHTTPRequestHandler):
    """Forwards a POST to a `serve` that takes the connection, as a load balancer would."""
    turn = 0

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        BalancerHandler.turn += 1
        status, answer = 502, b""
        for offset in range(len(SERVE_PORTS)):
            port = SERVE_PORTS[(BalancerHandler.turn + offset) % len(SERVE_PORTS)]
            status, parsed, _ = call("POST", f"http://127.0.0.1:{port}{self.path}", body)
            if status != "conn_error":
                answer = json.dumps(parsed).encode() if parsed is not None else b""
                break
        status = 502 if isinstance(status, str) else status
        self.send_response(status)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def serve_in_thread(port, handler):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# ---------------------------------------------------------------------------------------------------------------
# Bookkeeping of what the load did

class Stats:
    statuses = collections.Counter()            # (request kind, status) -> count, every answer SubLedger gave
    faults = collections.Counter()              # fault -> times injected
    read_latency = collections.defaultdict(list)  # phase -> seconds
    acknowledged = []                           # (kind, transaction id) of every input SubLedger acknowledged
    unacknowledged = []                         # inputs given up on
    simulator_skips = collections.Counter()     # actions the simulator refused (already subscribed, ...)
    actions = collections.Counter()
    refunded = set()                            # transaction ids refunded in the simulator


phase = {"name": "setup"}


class Account:
    def __init__(self, index):
        self.index = index
        self.account_id = f"acct-{index:04d}"
        self.apple_id = f"soak-{index:04d}@example.com"
        # Even accounts submit StoreKit 2 signed transactions, odd ones their app receipt.
        self.path = "transactions" if index % 2 == 0 else "receipts"
        self.subscribed = False
        self.auto_renew = True
        self.original_transaction_id = None
        self.transactions = []     # (product id, transaction id) bought by this account, in order


def submit(api_key, account, result):
    """Submits what a purchase left on the device until SubLedger acknowledges it (2xx)."""
    if account.path == "transactions":
        path, body = "/v1/transactions", {"account_id": account.account_id,
                                          "signed_transaction": result["signed_transaction"]}
    else:
        path, body = "/v1/receipts", {"account_id": account.account_id, "receipt_data": result["receipt_data"],
                                      "transaction_id": result["transaction_id"]}
    kind = "POST " + path
    deadline = time.time() + SUBMIT_GIVE_UP_SECONDS
    turn = account.index
    while True:
        port = SERVE_PORTS[turn % len(SERVE_PORTS)]
        turn += 1
        status, _, _ = call("POST", f"http://127.0.0.1:{port}{path}", body,
                            {"Authorization": "Bearer " + api_key}, timeout=30)
        with lock:
            Stats.statuses[(kind, status)] += 1
        if isinstance(status, int) and 200 <= status < 300:
            with lock:
                Stats.acknowledged.append((kind, result["transaction_id"]))
            return True
        if time.time() > deadline:
            with lock:
                Stats.unacknowledged.append((kind, result["transaction_id"], status))
            return False
        time.sleep(0.5)


def customer(api_key, accounts, rng):
    """One customer thread: acts for its own accounts (no two threads act for one account)."""
    while not stopping.is_set():
        account = rng.choice(accounts)
        draw = rng.random()
        if not account.subscribed or draw < 0.10:
            action = "purchase pro.monthly"
            status, result = sim("POST", "/control/purchases", {"apple_id": account.apple_id, "bundle_id": BUNDLE,
                                                                "product_id": "pro.monthly"})
            if status == 409:
                account.subscribed = True
            elif status == 200:
                account.subscribed, account.auto_renew = True, True
                account.original_transaction_id = result["original_transaction_id"]
                account.transactions.append(("pro.monthly", result["transaction_id"]))
                submit(api_key, account, result)
        elif draw < 0.35:
            action = "purchase coins"
            status, result = sim("POST", "/control/purchases", {"apple_id": account.apple_id, "bundle_id": BUNDLE,
                                                                "product_id": "coins"})
            if status == 200:
                account.transactions.append(("coins", result["transaction_id"]))
                submit(api_key, account, result)
        elif draw < 0.55:
            action = "auto-renew " + ("off" if account.auto_renew else "on")
            status, _ = sim("POST", f"/control/subscriptions/{account.original_transaction_id}/auto-renew",
                            {"enabled": not account.auto_renew})
            if status == 200:
                account.auto_renew = not account.auto_renew
        elif draw < 0.65:
            # A refund of one of the account's purchases (the subscription's or a consumable's): Apple tells
            # SubLedger with a REFUND notification.
            candidates = [t for t in account.transactions if t[1] not in Stats.refunded]
            if not candidates:
                continue
            product, transaction_id = rng.choice(candidates)
            action = "refund " + product
            status, _ = sim("POST", f"/control/transactions/{transaction_id}/refund", {"reason": 1})
            if status == 200:
                with lock:
                    Stats.refunded.add(transaction_id)
                if product == "pro.monthly":
                    account.subscribed = False   # a purchase later resubscribes, or is refused while active
        else:
            # The client sends its latest purchase again (it never saw the answer): the same signed
            # transaction, or the device's current receipt.
            if not account.transactions:
                continue
            transaction_id = account.transactions[-1][1]
            action = "submit again"
            if account.path == "transactions":
                status, result = sim("GET", f"/control/transactions/{transaction_id}/signed")
            else:
                status, result = sim("GET", f"/control/apple-ids/{urllib.parse.quote(account.apple_id)}/receipt"
                                            f"?bundle_id={BUNDLE}")
            if status == 200:
                submit(api_key, account, dict(result, transaction_id=transaction_id))
        with lock:
            Stats.actions[action] += 1
            if status != 200:
                Stats.simulator_skips[(action, status)] += 1
        time.sleep(rng.uniform(0.05, 0.4))


def reader(api_key, accounts, rng):
    while not stopping.is_set():
        account = rng.choice(accounts)
        port = rng.choice(SERVE_PORTS)
        begun = time.time()
        status, _, _ = call("GET", f"http://127.0.0.1:{port}/v1/accounts/{account.account_id}/entitlements",
                            headers={"Authorization": "Bearer " + api_key}, timeout=30)
        took = time.time() - begun
        with lock:
            Stats.statuses[("GET entitlements", status)] += 1
            if status == 200:
                Stats.read_latency[phase["name"]].append(took)
        time.sleep(0.02)


def clock_mover():
    while not stopping.is_set():
        sim("POST", "/control/clock/advance", {"hours": CLOCK_STEP_HOURS})
        time.sleep(CLOCK_STEP_SECONDS)


# ---------------------------------------------------------------------------------------------------------------
# Faults

def wait_ready(port, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if call("GET", f"http://127.0.0.1:{port}/health/ready", timeout=2)[0] == 200:
            return True
        time.sleep(0.2)
    return False


def inject(name, serves, poll, postgres, kill_turn):
    """Starts the phase's fault; answers what ends it."""
    if name == "serve_kill":
        victim = serves[kill_turn % 2]
        victim.kill9()
        Stats.faults["kill -9 serve"] += 1
        time.sleep(1)
        victim.start()
        wait_ready(SERVE_PORTS[kill_turn % 2])
        return lambda: None
    if name == "poll_kill":
        poll.kill9()
        Stats.faults["kill -9 poll"] += 1
        time.sleep(1)
        poll.start()
        return lambda: None
    if name == "postgres_restart":
        postgres.restart_immediate()
        Stats.faults["PostgreSQL restart -m immediate"] += 1
        return lambda: None
    if name.startswith("apple_"):
        rules = {
            "apple_down": {"verify_receipt": {"kind": "http_503"}, "server_api": {"kind": "http_503"}},
            "apple_slow": {"verify_receipt": {"kind": "latency", "latency_ms": 3000},
                           "server_api": {"kind": "latency", "latency_ms": 3000}},
            "apple_faulty": {"verify_receipt": {"kind": "apple_status", "status": 21100, "is_retryable": True,
                                                "rate": 0.5},
                             "server_api": {"kind": "http_500", "rate": 0.5}},
        }[name]
        for endpoint, rule in rules.items():
            status, _ = sim("PUT", f"/control/faults/{endpoint}", rule)
            if status != 200:
                raise SystemExit(f"error: the simulator refused the fault {rule} ({status})")
        Stats.faults[name.replace("_", " ")] += 1
        return lambda: sim("DELETE", "/control/faults")
    if name == "webhook_500":
        with lock:
            Receiver.failing = True
        Stats.faults["webhook receiver 500"] += 1

        def end():
            with lock:
                Receiver.failing = False
        return end
    return lambda: None


# ---------------------------------------------------------------------------------------------------------------
# Settling and checking

def wait_until(what, predicate, seconds=SETTLE_LIMIT_SECONDS, step=2.0):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(step)
    log(f"settle: gave up waiting for {what}")
    return False


def notification_backlog():
    """The simulator's notifications still to be delivered (a retry pending) and those it gave up on."""
    status, notifications = sim("GET", "/control/notifications")
    if status != 200:
        return None, None, []
    pending = [n for n in notifications if not n["delivered"] and n.get("next_attempt_at") is not None]
    abandoned = [n for n in notifications if not n["delivered"] and n.get("next_attempt_at") is None]
    return pending, abandoned, notifications


def truth(accounts):
    """What the simulator says, from verifyReceipt with the shared secret: every transaction of each Apple ID,
    and per account the entitlements and credits at the simulator's now."""
    status, clock = sim("GET", "/control/clock")
    now = clock["now"]
    expected, transactions = {}, {}
    for account in accounts:
        status, result = sim("GET", f"/control/apple-ids/{urllib.parse.quote(account.apple_id)}/receipt"
                                    f"?bundle_id={BUNDLE}")
        if status != 200 or not result.get("receipt_data"):
            expected[account.account_id] = (frozenset(), 0)
            continue
        status, answer = sim("POST", "/sandbox/verifyReceipt", {"receipt-data": result["receipt_data"],
                                                                "password": SHARED_SECRET})
        if status != 200 or answer.get("status") != 0:
            raise SystemExit(f"error: verifyReceipt for {account.apple_id} answered {status} {answer}")
        entitled, credits = False, 0
        for item in answer.get("latest_receipt_info", []):
            refunded = "cancellation_date_ms" in item
            transactions[item["transaction_id"]] = (account.account_id, item["product_id"], refunded)
            if item["product_id"] == "coins" and not refunded:
                credits += 100
            if item["product_id"] == "pro.monthly" and not refunded and \
                    int(item["purchase_date_ms"]) <= now < int(item["expires_date_ms"]):
                entitled = True
        expected[account.account_id] = (frozenset(["pro"]) if entitled else frozenset(), credits)
    return now, expected, transactions


def main():
    rng = random.Random(SEED)
    postgres = Postgres()
    processes = []

    def shutdown(*_):
        stopping.set()
        for process in processes:
            process.stop()
        postgres.stop()
        if KEEP:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return soak(rng, postgres, processes)
    finally:
        shutdown()


def soak(rng, postgres, processes):
    log(f"work directory {work}; {MINUTES} minutes, {ACCOUNTS} accounts, seed {SEED}")
    postgres.start()
    subledger = os.path.join(BIN, "subledger")
    env = dict(os.environ, DATABASE_URL=postgres.url, SUBLEDGER_LOG_LEVEL="warning",
               SUBLEDGER_VERIFY_RECEIPT_URL=f"{SIM}/verifyReceipt",
               SUBLEDGER_VERIFY_RECEIPT_SANDBOX_URL=f"{SIM}/sandbox/verifyReceipt",
               SUBLEDGER_SERVER_API_URL=SIM, SUBLEDGER_SERVER_API_SANDBOX_URL=f"{SIM}/sandbox",
               SUBLEDGER_APPLE_EXTRA_ROOTS=os.path.join(work, "root.der"), SUBLEDGER_TRUST_APPLE_ROOT="false",
               SUBLEDGER_APPLE_TIMEOUT_SECONDS="10", SUBLEDGER_APPLE_BREAKER_COOLDOWN_SECONDS="5",
               SUBLEDGER_RETRY_BASE_SECONDS="2", SUBLEDGER_RETRY_MAX_SECONDS="20",
               SUBLEDGER_RETRY_MAX_ATTEMPTS="1000", SUBLEDGER_PENDING_AGE_SECONDS="5",
               SUBLEDGER_RECOVERY_INTERVAL_SECONDS="0", SUBLEDGER_DB_POOL_SIZE="8")
    run([subledger, "migrate"], env)
    with open(os.path.join(work, "catalog.yaml"), "w") as catalog:
        catalog.write(f"""apps:
  - bundle_id: {BUNDLE}
    environments: [sandbox]
    shared_secret: {SHARED_SECRET}
    products:
      - {{ product_id: pro.monthly, type: auto_renewable, subscription_group_id: pro, group_level: 1, entitlements: [pro] }}
      - {{ product_id: coins, type: consumable, credits: 100 }}
""")
    run([subledger, "catalog", "apply", "--allow-plaintext-secrets", "catalog.yaml"], env)
    api_key = run([subledger, "keys", "create", "--app", BUNDLE, "--name", "soak"], env,
                  capture=True).strip().splitlines()[-1]
    run([subledger, "webhooks", "add", "--app", BUNDLE, "--url", f"http://127.0.0.1:{RECEIVER_PORT}/hook",
         "--allow-private-network"], env)

    serve_in_thread(RECEIVER_PORT, ReceiverHandler)
    serve_in_thread(BALANCER_PORT, BalancerHandler)
    simulator = Process("appstore-sim", [
        os.path.join(BIN, "appstore-sim"), "--port", str(SIM_PORT), "--seed", str(SEED),
        "--start-time", str(int(time.time() * 1000)), "--app", BUNDLE, "--shared-secret", SHARED_SECRET,
        "--product", "pro.monthly:auto_renewable:pro:P1M:1", "--product", "coins:consumable",
        "--notification-url", f"http://127.0.0.1:{BALANCER_PORT}/v1/notifications/appstore",
        "--export-root", os.path.join(work, "root.der"), "--log-level", "warning"], env)
    processes.append(simulator)
    simulator.start()
    if not wait_until("appstore-sim", lambda: sim("GET", "/control/health")[0] == 200, 30, 0.2):
        raise SystemExit("error: appstore-sim did not start")
    accounts = [Account(i) for i in range(ACCOUNTS)]
    for account in accounts:
        sim("POST", "/control/apple-ids", {"apple_id": account.apple_id})

    serves = [Process(f"serve{i + 1}", [subledger, "serve", "--port", str(port), "--no-migrate"], env)
              for i, port in enumerate(SERVE_PORTS)]
    poll = Process("poll", [subledger, "poll", "--interval-seconds", "2"], env)
    processes.extend(serves + [poll])
    for process in serves + [poll]:
        process.start()
    for port in SERVE_PORTS:
        if not wait_ready(port):
            raise SystemExit(f"error: serve on {port} did not become ready (see {work})")

    # The load: four customers (each with its own accounts), two readers, the clock.
    threads = []
    for number in range(4):
        own = [a for a in accounts if a.index % 4 == number]
        threads.append(threading.Thread(target=customer, args=(api_key, own, random.Random(SEED * 100 + number)),
                                        daemon=True))
    for number in range(2):
        threads.append(threading.Thread(target=reader, args=(api_key, accounts, random.Random(SEED * 200 + number)),
                                        daemon=True))
    threads.append(threading.Thread(target=clock_mover, daemon=True))
    phase["name"] = "baseline"
    for thread in threads:
        thread.start()
    time.sleep(10)
    measure_rss(processes, postgres, "rss_start")

    duration = MINUTES * 60
    phase_seconds = min(45.0, duration / len(PHASES))
    index = kill_turn = 0
    run_started = time.time()
    end = run_started + duration
    while time.time() + phase_seconds / 2 < end or index < len(PHASES):  # every fault at least once
        name = PHASES[index % len(PHASES)]
        phase["name"] = name
        log(f"phase {name}")
        stop_fault = inject(name, serves, poll, postgres, kill_turn)
        if name == "serve_kill":
            kill_turn += 1
        time.sleep(phase_seconds)
        stop_fault()
        index += 1
    # Settle: no more faults or load; every process up.
    phase["name"] = "settle"
    log("settle: faults off, load stopped")
    sim("DELETE", "/control/faults")
    Receiver.failing = False
    stopping.set()
    for thread in threads:
        thread.join()
    for i, process in enumerate(serves + [poll]):
        if process.pid() is None:
            log(f"{process.name} had exited ({process.popen.returncode}); restarting it")
            process.start()
    for port in SERVE_PORTS:
        wait_ready(port)

    # Apple's retries: moving the clock an hour at a time fires every retry still pending.
    def notifications_delivered():
        pending, _, _ = notification_backlog()
        if pending:
            sim("POST", "/control/clock/advance", {"hours": 1})
        return pending == []
    wait_until("the simulator's notification retries", notifications_delivered, step=0.5)
    wait_until("poll to credit every stored input", lambda: postgres.psql("subledger", """
        SELECT (SELECT count(*) FROM receipts WHERE status IN ('pending', 'retry'))
             + (SELECT count(*) FROM notifications WHERE status IN ('pending', 'retry'))""")[0][0] == "0")
    wait_until("webhook deliveries to drain", lambda: postgres.psql(
        "subledger", "SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'")[0][0] == "0")
    measure_rss(processes, postgres, "rss_end")
    return check(accounts, api_key, postgres, serves, poll, simulator)


def measure_rss(processes, postgres, field):
    for process in processes:
        if process.pid():
            setattr(process, field, rss_megabytes(process.pid()))
    pid = postgres.postmaster_pid()
    if pid:
        setattr(postgres, field, rss_megabytes(pid))


def check(accounts, api_key, postgres, serves, poll, simulator):
    failures = []
    _, abandoned, notifications = notification_backlog()
    if abandoned:
        failures.append(f"{len(abandoned)} notifications the simulator gave up delivering")
    now, expected, transactions = truth(accounts)

    # Exactly once: each of Apple's transactions has one effect granting or crediting it, and each refunded one
    # has one effect taking it back.
    rows = postgres.psql("subledger", """
        SELECT transaction_id,
               count(*) FILTER (WHERE kind IN ('grant', 'extend', 'credit')),
               count(*) FILTER (WHERE kind IN ('revoke', 'debit'))
        FROM ledger_entries WHERE transaction_id IS NOT NULL GROUP BY transaction_id""")
    effects = {row[0]: (int(row[1]), int(row[2])) for row in rows}
    lost, duplicated = [], []
    for transaction_id, (_, _, refunded) in transactions.items():
        granted, taken = effects.get(transaction_id, (0, 0))
        if granted == 0 or (refunded and taken == 0):
            lost.append(transaction_id)
        if granted > 1 or taken > 1:
            duplicated.append(transaction_id)
    unknown = sorted(set(effects) - set(transactions))
    acknowledged = {transaction_id for _, transaction_id in Stats.acknowledged} | {
        n["transaction_id"] for n in notifications if n["delivered"] and n.get("transaction_id")}
    acknowledged_lost = sorted(t for t in acknowledged if effects.get(t, (0, 0))[0] == 0)
    if lost:
        failures.append(f"{len(lost)} transactions lost (no effect), e.g. {lost[:5]}")
    if acknowledged_lost:
        failures.append(f"{len(acknowledged_lost)} acknowledged inputs without an effect, e.g. {acknowledged_lost[:5]}")
    if duplicated:
        failures.append(f"{len(duplicated)} transactions applied more than once, e.g. {duplicated[:5]}")
    if unknown:
        failures.append(f"{len(unknown)} ledger effects for transactions Apple does not know, e.g. {unknown[:5]}")
    if Stats.unacknowledged:
        failures.append(f"{len(Stats.unacknowledged)} inputs never acknowledged, e.g. {Stats.unacknowledged[:3]}")

    # Every webhook event delivered to the receiver.
    events = {row[0] for row in postgres.psql("subledger", "SELECT event_id FROM webhook_events")}
    with lock:
        received = dict(Receiver.received)
    undelivered = sorted(events - set(received))
    if undelivered:
        failures.append(f"{len(undelivered)} webhook events never received, e.g. {undelivered[:3]}")
    strangers = sorted(set(received) - events)
    if strangers:
        failures.append(f"{len(strangers)} webhook events received that the outbox does not hold")

    # Entitlements as the simulator says, at the simulator's now.
    mismatched = []
    for account in accounts:
        status, answer, _ = call("GET", f"http://127.0.0.1:{SERVE_PORTS[0]}/v1/accounts/{account.account_id}"
                                        f"/entitlements?at={now}", headers={"Authorization": "Bearer " + api_key})
        if status != 200:
            mismatched.append((account.account_id, status))
            continue
        got = (frozenset(e["entitlement_id"] for e in answer["entitlements"]
                         if e["state"] in ("active", "grace_period")), answer["credits"])
        if got != expected[account.account_id]:
            mismatched.append((account.account_id, sorted(got[0]), got[1], sorted(expected[account.account_id][0]),
                               expected[account.account_id][1]))
    if mismatched:
        failures.append(f"{len(mismatched)} accounts whose entitlements differ from Apple's, e.g. {mismatched[:3]}")
    if any(status == 500 for (_, status) in Stats.statuses):
        failures.append("SubLedger answered 500")

    report(accounts, transactions, effects, lost, duplicated, events, received, expected, mismatched, postgres,
           serves, poll, simulator, notifications)
    if failures:
        print("\nFAIL:\n  " + "\n  ".join(failures))
        return 1
    print("\nPASS")
    return 0


def p99(values):
    if not values:
        return "-"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000:.1f} ms"


def report(accounts, transactions, effects, lost, duplicated, events, received, expected, mismatched, postgres,
           serves, poll, simulator, notifications):
    rows = []
    add = rows.append
    add(("run", f"{MINUTES} min of load and faults, {ACCOUNTS} accounts, seed {SEED}, "
                f"{time.time() - started_at:.0f} s in all"))
    for (kind, status), count in sorted(Stats.statuses.items(), key=lambda item: (item[0][0], str(item[0][1]))):
        add((f"requests: {kind} → {status}", str(count)))
    for action, count in sorted(Stats.actions.items()):
        add((f"simulator: {action}", str(count)))
    delivered = sum(1 for n in notifications if n["delivered"])
    attempts = sum(len(n["attempts"]) for n in notifications)
    add(("simulator: notifications delivered (attempts)", f"{delivered} of {len(notifications)} ({attempts})"))
    for fault, count in sorted(Stats.faults.items()):
        add((f"fault: {fault}", str(count)))
    add(("fault: webhook answers 500 given", str(Receiver.refused)))
    refunded = sum(1 for (_, _, r) in transactions.values() if r)
    add(("Apple's transactions (refunded)", f"{len(transactions)} ({refunded})"))
    add(("submissions acknowledged by SubLedger (2xx) / their transactions",
         f"{len(Stats.acknowledged)} / {len({t for _, t in Stats.acknowledged})}"))
    add(("lost", str(len(lost))))
    add(("duplicated", str(len(duplicated))))
    add(("webhook events in the outbox / received / received twice or more",
         f"{len(events)} / {len(set(received) & events)} / {sum(1 for c in received.values() if c > 1)}"))
    entitled = sum(1 for e in expected.values() if e[0])
    add(("entitlements equal to Apple's (accounts entitled)",
         f"{len(accounts) - len(mismatched)} of {len(accounts)} ({entitled})"))
    for process in serves + [poll, simulator]:
        add((f"RSS {process.name} start → end (starts)", f"{fmt(process.rss_start)} → {fmt(process.rss_end)} "
                                                           f"({process.starts})"))
    add(("RSS postgres postmaster start → end (restarts)",
         f"{fmt(postgres.rss_start)} → {fmt(postgres.rss_end)} ({postgres.restarts})"))
    for name in PHASES:
        if name in Stats.read_latency:
            add((f"p99 entitlement read: {name}", f"{p99(Stats.read_latency[name])} "
                                                  f"({len(Stats.read_latency[name])} reads)"))
    width = max(len(r[0]) for r in rows)
    print()
    print(f"| {'what'.ljust(width)} | value |")
    print(f"| {'-' * width} | --- |")
    for what, value in rows:
        print(f"| {what.ljust(width)} | {value} |")


def fmt(megabytes):
    return "-" if megabytes is None else f"{megabytes:.0f} MB"


if __name__ == "__main__":
    sys.exit(main())
