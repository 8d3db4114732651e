#!/usr/bin/env python3
"""make soak: one `passconsole serve` process under a support team's mixed load for SOAK_SECONDS (default 600).

At once, for the whole run:
  - SDK flows in other processes (`passconsole flow authorize` then `flow logout`, reporting to the console),
  - ingest of NDJSON batches (INGEST_RATE events/s),
  - SSE_CLIENTS live feeds reading /api/events/stream (reconnecting with Last-Event-ID when cut),
  - page reads (overview, events, sessions, storage),
  - storage clears with their undo, exports with live tokens and imports of that export back.
The server's RSS is sampled every minute. At the end it prints every count and failure, the samples, and a verdict:
the process answered throughout, no request failed, and RSS is flat at the end (the last sample within 15 % or 24 MB of
the sample at half time; the first minutes grow by design while SQLite's page caches fill). Exit status 0 only when all hold.

Stdlib only. Binary: PASSCONSOLE_BINARY, else .build/release/passconsole, else .build/debug/passconsole.
"""
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timezone

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECONDS = int(os.environ.get("SOAK_SECONDS", "600"))
SSE_CLIENTS = int(os.environ.get("SSE_CLIENTS", "20"))
INGEST_RATE = int(os.environ.get("INGEST_RATE", "500"))
SAMPLE_EVERY = int(os.environ.get("SAMPLE_EVERY", "60"))
# Parts of the load can be left out (FLOWS=0, STORAGE=0, READS=0, SSE_CLIENTS=0, INGEST_RATE=0) to find which one a
# growth follows.
FLOWS = os.environ.get("FLOWS", "1") != "0"
STORAGE = os.environ.get("STORAGE", "1") != "0"
READS = os.environ.get("READS", "1") != "0"


def binary():
    for path in (os.environ.get("PASSCONSOLE_BINARY"), ".build/release/passconsole", ".build/debug/passconsole"):
        if path and os.path.exists(os.path.join(ROOT, path)):
            return os.path.join(ROOT, path)
    sys.exit("soak: no passconsole binary; run swift build first")


class Tally:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.failures = {}

    def ok(self, kind, n=1):
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + n

    def fail(self, kind, why):
        with self.lock:
            self.failures.setdefault(kind, []).append(str(why)[:200])


def request(port, method, path, body=None, headers=None, timeout=30):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, answer.read()
    finally:
        connection.close()


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def wire_time():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def ingest_body(count, app):
    session = str(uuid.uuid4()).upper()
    lines = []
    for sequence in range(count):
        event = {"sequence": sequence, "timestamp": wire_time(), "sessionID": session, "deviceID": "soak-device",
                 "app": {"bundleID": app, "teamID": "SOAK1", "platform": "ios"}, "requestorID": "REF30",
                 "kind": {"apiCall": {"name": f"soak{sequence}", "arguments": {}}}}
        lines.append(json.dumps(event))
    return ("\n".join(lines) + "\n").encode()


def main():
    folder = tempfile.mkdtemp(prefix="passconsole-soak-")
    out = open(os.path.join(folder, "serve.out"), "w+")
    server = subprocess.Popen(
        [binary(), "serve", "--port", "0", "--backend-port", "0", "--device", os.path.join(folder, "device"),
         "--history", os.path.join(folder, "history.sqlite")],
        cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    console = backend = None
    for _ in range(300):
        time.sleep(0.1)
        out.seek(0)
        for line in out.read().splitlines():
            words = line.split()
            if "Console:" in words:
                console = int(words[words.index("Console:") + 1].split(":")[2].split("/")[0])
            if "Backend:" in words:
                backend = int(words[words.index("Backend:") + 1].split(":")[2].split("/")[0])
        if console and backend:
            break
    if not (console and backend):
        server.kill()
        sys.exit("soak: serve did not start")
    tally = Tally()
    stop = time.monotonic() + SECONDS
    running = lambda: time.monotonic() < stop

    # The event shape must be what the server accepts: check once before the clock counts.
    status, body = request(console, "POST", "/api/ingest", ingest_body(1, "com.soak.check"),
                           {"Content-Type": "application/x-ndjson"})
    if status != 200:
        server.kill()
        sys.exit(f"soak: the console refused a sample event ({status}): {body[:300]!r}")

    def ingest():
        batch = max(1, INGEST_RATE // 5)
        while running():
            started = time.monotonic()
            try:
                status, body = request(console, "POST", "/api/ingest", ingest_body(batch, f"com.soak.app{random.randrange(50)}"),
                                       {"Content-Type": "application/x-ndjson"})
                if status == 200:
                    tally.ok("ingest events", json.loads(body)["accepted"])
                else:
                    tally.fail("ingest", f"{status} {body[:200]!r}")
            except Exception as error:
                tally.fail("ingest", error)
            time.sleep(max(0, 0.2 - (time.monotonic() - started)))

    def live(index):
        last = None
        query = "" if index % 2 == 0 else "?q=app:com.soak.app7"
        while running():
            try:
                # http.client takes off the chunked framing: a chunk-size line can fall inside an `id:` line.
                connection = http.client.HTTPConnection("127.0.0.1", console, timeout=30)
                headers = {"Accept": "text/event-stream"}
                if last:
                    headers["Last-Event-ID"] = last
                connection.request("GET", f"/api/events/stream{query}", headers=headers)
                response = connection.getresponse()
                tally.ok("live connections")
                buffered = b""
                while running():
                    chunk = response.read1(65536)
                    if not chunk:
                        break
                    buffered += chunk
                    *whole, buffered = buffered.split(b"\n\n")
                    for message in whole:
                        for line in message.split(b"\n"):
                            if line.startswith(b"id: "):
                                last = line[4:].decode()
                                tally.ok("live events")
                connection.close()
            except socket.timeout:
                continue
            except Exception as error:
                tally.fail("live", error)
                time.sleep(1)

    def reads():
        paths = ["/api/overview", "/api/events?limit=50", "/api/events?limit=50&q=status:4xx", "/api/sessions",
                 "/api/storage", "/api/audit?limit=20"]
        while running():
            path = random.choice(paths)
            try:
                status, body = request(console, "GET", path)
                (tally.ok if status == 200 else lambda k: tally.fail(k, f"{path} {status} {body[:200]!r}"))("reads")
            except Exception as error:
                tally.fail("reads", f"{path} {error}")
            time.sleep(0.1)

    def flows():
        device = os.path.join(folder, "flow-device")
        base = [binary(), "flow"]
        common = ["--backend", f"http://127.0.0.1:{backend}", "--device", device,
                  "--report-to", f"http://127.0.0.1:{console}"]
        while running():
            for step in (["authorize", "--mvpd", "Cablevision", "--user", "alice", "--password", "alice123",
                          "--resource", "news"], ["logout"]):
                result = subprocess.run(base + step + common, cwd=ROOT, capture_output=True, timeout=120)
                if result.returncode == 0:
                    tally.ok(f"flow {step[0]}")
                else:
                    tally.fail(f"flow {step[0]}", result.stdout[-300:] + result.stderr[-300:])

    def storage():
        while running():
            try:
                status, body = request(console, "GET", "/api/overview")
                csrf = json.loads(body)["csrfToken"]
                headers = {"X-PassConsole-CSRF": csrf, "Content-Type": "application/json"}
                status, body = request(console, "POST", "/api/storage/clear",
                                       json.dumps({"domain": "phone/team:TEAM1234"}), headers)
                if status != 200:
                    tally.fail("clear", f"{status} {body[:200]!r}")
                else:
                    tally.ok("clears")
                    backup = json.loads(body).get("backupID")
                    if backup:
                        status, body = request(console, "POST", "/api/storage/undo", json.dumps({"backupID": backup}), headers)
                        (tally.ok if status == 200 else lambda k: tally.fail(k, f"{status} {body[:200]!r}"))("undos")
                status, exported = request(console, "GET", "/api/storage/export?domain=phone/team:TEAM1234&reveal=true")
                if status != 200:
                    tally.fail("export", f"{status} {exported[:200]!r}")
                    continue
                tally.ok("exports")
                status, body = request(console, "POST", "/api/storage/import?domain=phone/team:TEAM1234",
                                       exported, headers)
                (tally.ok if status == 200 else lambda k: tally.fail(k, f"{status} {body[:200]!r}"))("imports")
            except Exception as error:
                tally.fail("storage", error)
            time.sleep(2)

    parts = [(ingest, INGEST_RATE > 0), (reads, READS), (flows, FLOWS), (storage, STORAGE)]
    threads = [threading.Thread(target=part) for part, wanted in parts if wanted]
    threads += [threading.Thread(target=live, args=(i,)) for i in range(SSE_CLIENTS)]
    for thread in threads:
        thread.daemon = True
        thread.start()
    samples = [(0, rss_kb(server.pid))]
    began = time.monotonic()
    alive = True
    while running():
        time.sleep(min(SAMPLE_EVERY, max(0.1, stop - time.monotonic())))
        if server.poll() is not None:
            alive = False
            break
        samples.append((round(time.monotonic() - began), rss_kb(server.pid)))
    for thread in threads:
        thread.join(timeout=40)
    try:
        final_status, _ = request(console, "GET", "/api/overview", timeout=10)
    except Exception:
        final_status = None
    server.terminate()
    try:
        server.wait(timeout=15)
        stopped = True
    except subprocess.TimeoutExpired:
        server.kill()
        stopped = False

    # Flat at the end: the last sample against the one at half time. The first minutes grow by design while SQLite's
    # page caches fill (16 MB per connection, a writer and up to five readers) and the history's indexes warm up.
    reference = samples[len(samples) // 2][1]
    end = samples[-1][1]
    flat = end <= max(reference * 1.15, reference + 24 * 1024)
    failures = sum(len(v) for v in tally.failures.values())
    print(f"soak: {SECONDS} s, {SSE_CLIENTS} live clients (half filtered), ingest {INGEST_RATE} events/s")
    for kind, count in sorted(tally.counts.items()):
        print(f"  {kind}: {count}")
    for kind, reasons in sorted(tally.failures.items()):
        print(f"  FAILED {kind}: {len(reasons)} (first: {reasons[0]})")
    print("  RSS samples (s: MB): " + ", ".join(f"{t}: {kb / 1024:.0f}" for t, kb in samples))
    print(f"  process up throughout: {alive}; answered at the end: {final_status == 200}; stopped on SIGTERM: {stopped}")
    print(f"  RSS flat at the end (end {end / 1024:.0f} MB vs {reference / 1024:.0f} MB at half time): {flat}")
    ok = alive and final_status == 200 and stopped and flat and failures == 0
    print("soak: " + ("PASS" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
