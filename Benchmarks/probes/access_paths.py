#!/usr/bin/env python3
"""Path spellings and request framing against a console bound to 0.0.0.0 (token required) and its backend.

Every spelling of a protected console route without the token must answer 401; the backend's /admin must refuse a
page's no-cors POST; framing probes must get their status at once.

    Benchmarks/probes/access_paths.py
"""
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
from common import Serve, exchange, lan_address, report, status

ROUTES = [("GET", "/api/overview"), ("GET", "/api/storage/export?reveal=true"), ("POST", "/api/storage/clear"),
          ("GET", "/api/events"), ("POST", "/api/ingest")]


def variants(path):
    query = ""
    if "?" in path:
        path, query = path.split("?", 1)
        query = "?" + query
    rest = path[len("/api"):]
    spellings = ["/" + path, "/." + path, "/%61pi" + rest, path.upper(), "/Api" + rest, "/api." + rest, path + "/.",
                 path + ".", "/x/.." + path, path.replace("/", "//"), "/%2e" + path, "/api%2F" + rest[1:], path]
    return [s + query for s in spellings]


def main():
    serve = Serve(host="0.0.0.0", demo=False, env={"PASSCONSOLE_TOKEN": ""})
    try:
        tries = failures = 0
        for method, path in ROUTES:
            for target in variants(path):
                tries += 1
                data = exchange(serve.port, f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n"
                                f"Content-Type: application/json\r\nConnection: close\r\n\r\n".encode())
                if status(data) != 401:
                    failures += 1
                    print("  passed without token:", method, target, status(data))
        tries += 1
        if status(exchange(serve.port, b"GET /api/overview?token= HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")) != 401:
            failures += 1
        report("console route spellings without the token (PASSCONSOLE_TOKEN= empty, bound 0.0.0.0)", tries, failures)

        lan = lan_address()
        if lan:
            code = status(exchange(serve.port, f"GET /api/overview HTTP/1.1\r\nHost: {lan}:{serve.port}\r\n"
                                   f"Authorization: Bearer {serve.token}\r\nConnection: close\r\n\r\n".encode(), host=lan))
            report(f"LAN Host {lan} with the token", 1, 0 if code == 200 else 1, f"status={code}")

        b = serve.backend_port
        attacks = {
            "no-cors text/plain POST /admin/clock from another port": (
                f"POST /admin/clock HTTP/1.1\r\nHost: 127.0.0.1:{b}\r\nOrigin: http://localhost:3000\r\n"
                "Content-Type: text/plain;charset=UTF-8\r\nContent-Length: 30\r\n\r\n{\"advanceSeconds\":31536000}   ", {403}),
            "text/plain POST /admin/clock (no Origin)": (
                f"POST /admin/clock HTTP/1.1\r\nHost: 127.0.0.1:{b}\r\nContent-Type: text/plain\r\nContent-Length: 30\r\n\r\n"
                "{\"advanceSeconds\":31536000}   ", {415}),
            "JSON POST /admin/clock with a rebound Host": (
                f"POST /admin/clock HTTP/1.1\r\nHost: evil.example:{b}\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n"
                "{\"advanceSeconds\":31536000}   ", {403}),
        }
        failures = 0
        for name, (raw, expected) in attacks.items():
            code = status(exchange(b, (raw + "").encode()))
            if code not in expected:
                failures += 1
                print("  admin attack not refused:", name, code)
        report("backend /admin attacks from a page", len(attacks), failures)

        framing = {
            "two Content-Length": (b"POST /api/ingest HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 40\r\n\r\nabc", 400),
            "Transfer-Encoding: xchunked": (b"POST /api/ingest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n", 501),
            "Transfer-Encoding: gzip, chunked": (b"POST /api/ingest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
            "Transfer-Encoding : chunked": (b"POST /api/ingest HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\n\r\n", 400),
        }
        for length in range(16_000, 16_350, 10):
            framing[f"URL of {length} bytes"] = (f"GET /{'a' * (length - 1)} HTTP/1.1\r\nHost: x\r\n\r\n".encode(), 414)
        failures = 0
        json_414 = 0
        for name, (raw, expected) in framing.items():
            data = exchange(serve.port, raw, timeout=3)
            if status(data) != expected:
                failures += 1
                print("  framing:", name, "->", status(data))
            if expected == 414 and b"application/json" in data:
                json_414 += 1
        report("framing probes (answered at once with the right status)", len(framing), failures,
               f"json_414={json_414}/{sum(1 for v in framing.values() if v[1] == 414)}")
    finally:
        serve.stop()


if __name__ == "__main__":
    main()
