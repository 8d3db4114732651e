#!/usr/bin/env python3
"""30 concurrent 15 MB ingests into the console (each retrying after a 503 from the body budget), RSS of the server before, at peak and after; and 40 unauthenticated
16 MB uploads to a console bound to 0.0.0.0 (each must be refused before its body is read).

    Benchmarks/probes/big_bodies.py [INGESTS=30] [SIZE_MB=15]
"""
import json, os, select, socket, sys, threading, time, uuid
sys.path.insert(0, os.path.dirname(__file__))
from common import Serve, exchange, report, rss_mb, status

INGESTS = int(os.environ.get("INGESTS", 30))
SIZE = int(float(os.environ.get("SIZE_MB", 15)) * 1_000_000)


def events_body(template, size):
    lines, total, sequence = [], 0, 0
    session = str(uuid.uuid4()).upper()
    while total < size:
        event = dict(template, sessionID=session, sequence=sequence)
        line = json.dumps(event) + "\n"
        lines.append(line)
        total += len(line)
        sequence += 1
    return "".join(lines).encode()


def upload(port, head, payload):
    """Sends a head then its body, stopping early if the server answers first; returns the status."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=300)
    try:
        sock.sendall(head)
        view, sent = memoryview(payload), 0
        while sent < len(payload):
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            try:
                sent += sock.send(view[sent:sent + 262144])
            except (BrokenPipeError, ConnectionResetError):
                break
        answer = b""
        while b"\r\n" not in answer:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            answer += chunk
        return status(answer)
    finally:
        sock.close()


def ingests():
    serve = Serve(demo=True)
    try:
        time.sleep(3)
        data = exchange(serve.port, b"GET /api/events/export?format=ndjson HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", timeout=10)
        body = data.partition(b"\r\n\r\n")[2]
        template = json.loads(body.split(b"\n")[0])
        payloads = [events_body(template, SIZE) for _ in range(INGESTS)]
        start = rss_mb(serve.pid)
        peak = [start]
        results = []
        retries = [0]

        def send(payload):
            head = (f"POST /api/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\n"
                    f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n").encode()
            # Past the server's body budget an upload is told to retry (503 + Retry-After), as a reporter does.
            for _ in range(600):
                code = upload(serve.port, head, payload)
                if code != 503:
                    break
                retries[0] += 1
                time.sleep(1)
            results.append(code)

        stop = threading.Event()

        def watch():
            while not stop.is_set():
                peak[0] = max(peak[0], rss_mb(serve.pid))
                time.sleep(0.05)

        threading.Thread(target=watch, daemon=True).start()
        threads = [threading.Thread(target=send, args=(p,)) for p in payloads]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        time.sleep(3)
        stop.set()
        after = rss_mb(serve.pid)
        failures = sum(1 for code in results if code != 200)
        report(f"{INGESTS} concurrent {SIZE / 1e6:.0f} MB ingests", INGESTS, failures,
               f"rss_start={start:.0f}MB rss_peak={peak[0]:.0f}MB rss_after={after:.0f}MB statuses={sorted(set(results), key=str)} retries_after_503={retries[0]}")
    finally:
        serve.stop()


def unauthenticated_uploads(count=40, size=16_000_000):
    serve = Serve(host="0.0.0.0", demo=False)
    try:
        start = rss_mb(serve.pid)
        failures = 0
        sockets = []
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", serve.port))
            sock.sendall((f"POST /api/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\n"
                          f"Content-Length: {size}\r\n\r\n").encode())
            sock.setblocking(False)
            sent = 0
            chunk = b"{" * 65536
            deadline = time.time() + 5
            answer = b""
            while sent < size and time.time() < deadline:
                try:
                    answer += sock.recv(4096)
                    if answer:
                        break
                except BlockingIOError:
                    pass
                try:
                    sent += sock.send(chunk)
                except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                    time.sleep(0.01)
            if status(answer) != 401 or sent >= size // 2:
                failures += 1
            sockets.append(sock)
        peak = rss_mb(serve.pid)
        report(f"{count} unauthenticated {size / 1e6:.0f} MB uploads (console on 0.0.0.0)", count, failures,
               f"rss_start={start:.0f}MB rss_with_all_open={peak:.0f}MB")
        for sock in sockets:
            sock.close()
    finally:
        serve.stop()


if __name__ == "__main__":
    unauthenticated_uploads()
    ingests()
