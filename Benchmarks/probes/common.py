"""Shared helpers for the HTTP-layer probes: start `passconsole serve`, raw sockets, RSS of a process."""
import json, os, re, socket, subprocess, sys, tempfile, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("PASSCONSOLE_BIN", os.path.join(ROOT, ".build", "debug", "passconsole"))


def lan_address():
    """An IPv4 address of this machine that is not loopback, or None."""
    out = subprocess.run(["ip", "-4", "-o", "addr"], capture_output=True, text=True).stdout
    for match in re.finditer(r"inet (\d+\.\d+\.\d+\.\d+)/", out):
        if not match.group(1).startswith("127."):
            return match.group(1)
    return None


class Serve:
    """`passconsole serve` on free ports in a temporary folder; `.port`, `.backend_port`, `.token`, `.pid`."""

    def __init__(self, host="127.0.0.1", demo=True, env=None):
        self.folder = tempfile.mkdtemp(prefix="probe-")
        args = [BIN, "serve", "--host", host, "--port", "0", "--backend-port", "0",
                "--device", os.path.join(self.folder, "device"), "--history", os.path.join(self.folder, "h.sqlite"),
                "--access-token-file", os.path.join(self.folder, "token")]
        if not demo:
            args.append("--no-demo")
        self.out = open(os.path.join(self.folder, "out.txt"), "w+")
        environment = dict(os.environ, LOG_LEVEL="error", **(env or {}))
        self.process = subprocess.Popen(args, cwd=ROOT, stdout=self.out, stderr=subprocess.DEVNULL, env=environment)
        self.pid = self.process.pid
        deadline = time.time() + 60
        while time.time() < deadline:
            self.out.seek(0)
            text = self.out.read()
            console = re.search(r"Console:\s+http://[^:]+:(\d+)/(\?token=(\w+))?", text)
            backend = re.search(r"Backend:\s+http://[^:]+:(\d+)/", text)
            if console and backend:
                self.port, self.token = int(console.group(1)), console.group(3)
                self.backend_port = int(backend.group(1))
                return
            time.sleep(0.1)
        self.stop()
        raise SystemExit("serve did not start: " + text)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def exchange(port, raw, host="127.0.0.1", timeout=5.0, source=None):
    """Sends raw bytes, returns what came back until the peer closed or `timeout` passed."""
    sock = socket.socket()
    if source:
        sock.bind((source, 0))
    sock.settimeout(timeout)
    sock.connect((host, port))
    sock.sendall(raw)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data:
                head, _, body = data.partition(b"\r\n\r\n")
                length = re.search(rb"Content-Length: (\d+)", head, re.I)
                if length and len(body) >= int(length.group(1)):
                    break
    except socket.timeout:
        pass
    sock.close()
    return data


def status(data):
    match = re.match(rb"HTTP/1\.1 (\d+)", data)
    return int(match.group(1)) if match else None


def report(name, tries, failures, extra=""):
    print(f"{name}: tries={tries} failures={failures}" + (f" {extra}" if extra else ""))
    sys.stdout.flush()
