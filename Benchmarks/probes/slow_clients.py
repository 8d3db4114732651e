#!/usr/bin/env python3
"""1,100 connections trickling request headers, then normal requests to the console and the backend.

Run twice: the slow clients from loopback (exempt from the per-client limit: the head deadline and the large global
limit keep the server answering), and from this machine's LAN address against a console bound to 0.0.0.0 (the
per-client limit refuses all but 64 of them). A failure is a normal request not answered 200 within 3 s.

    Benchmarks/probes/slow_clients.py [SLOW=1100] [NORMAL=40]
"""
import os, socket, sys, threading, time
sys.path.insert(0, os.path.dirname(__file__))
from common import Serve, exchange, lan_address, report, status

SLOW = int(os.environ.get("SLOW", 1100))
NORMAL = int(os.environ.get("NORMAL", 40))


def open_slow(host, port, count, source=None):
    sockets = []
    for index in range(count):
        try:
            sock = socket.socket()
            if source:
                sock.bind((source, 0))
            sock.settimeout(2)
            sock.connect((host, port))
            sock.sendall(f"GET /api/overview HTTP/1.1\r\nHost: {host}\r\nX-Slow-{index}: ".encode())
            sockets.append(sock)
        except OSError:
            pass
    return sockets


def trickle(sockets, stop):
    while not stop.is_set():
        for sock in sockets:
            try:
                sock.send(b"a")
            except OSError:
                pass
        time.sleep(1)


def count_open(sockets):
    alive = 0
    for sock in sockets:
        try:
            sock.setblocking(False)
            alive += 1 if sock.recv(1, socket.MSG_PEEK) != b"" else 0
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
        finally:
            sock.setblocking(True)
    return alive


def normal_requests(ports, host="127.0.0.1", token=None):
    tries = failures = 0
    slowest = 0.0
    for index in range(NORMAL):
        for port, path in ports:
            tries += 1
            auth = f"Authorization: Bearer {token}\r\n" if token and "/api/" in path else ""
            started = time.time()
            try:
                data = exchange(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{auth}Connection: close\r\n\r\n".encode(),
                                host=host, timeout=3)
            except OSError:
                data = b""
            elapsed = time.time() - started
            slowest = max(slowest, elapsed)
            if status(data) != 200 or elapsed > 3:
                failures += 1
        time.sleep(0.25)
    return tries, failures, slowest


def scenario(name, bind, source):
    serve = Serve(host=bind, demo=False)
    try:
        target = source or "127.0.0.1"
        console = open_slow(target, serve.port, SLOW, source)
        backend = open_slow(target, serve.backend_port, SLOW) if not source else []
        stop = threading.Event()
        threading.Thread(target=trickle, args=(console + backend, stop), daemon=True).start()
        time.sleep(1)
        open_after_1s = count_open(console + backend)
        tries, failures, slowest = normal_requests(
            [(serve.port, "/api/overview"), (serve.backend_port, "/adobe-services/1.0/config/REF30")], token=serve.token)
        stop.set()
        alive = 0
        for sock in console + backend:
            try:
                sock.settimeout(0.01)
                alive += 1 if sock.recv(1) != b"" else 0
            except socket.timeout:
                alive += 1
            except OSError:
                pass
            sock.close()
        report(name, tries, failures,
               f"slow_connected={len(console) + len(backend)} slow_held_after_1s={open_after_1s} slow_still_open_at_end={alive} slowest_normal={slowest:.2f}s")
    finally:
        serve.stop()


if __name__ == "__main__":
    scenario(f"slow clients from loopback ({SLOW} on each server)", "127.0.0.1", None)
    lan = lan_address()
    if lan:
        scenario(f"slow clients from {lan} ({SLOW} on the console bound to 0.0.0.0)", "0.0.0.0", lan)
    else:
        print("no LAN address: per-client scenario skipped")
