"""What every Python interop peer shares: counting checks, the closing line that
scripts/interop.sh adds to its total, free loopback ports and waiting for a server.

    from harness import Checks
    checks = Checks("oauthlib")
    checks.check(ok, "what was expected")     # prints 'FAIL: ...' when not ok; returns ok
    checks.finish()                           # 'oauthlib: N passed, M failed'; exits 1 on a failure

The shell peers share scripts/interop/lib.sh the same way.
"""
import queue
import re
import socket
import subprocess
import sys
import threading
import time


class Checks:
    """Counts passed and failed checks; a failure prints one 'FAIL:' line."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def check(self, ok, label, detail=None):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL: {label}" + (f" -- {detail}" if detail else ""))
        return ok

    def finish(self, name=None):
        """Prints 'NAME: N passed, M failed' and exits 1 on any failure or when nothing ran."""
        print(f"{name or self.name}: {self.passed} passed, {self.failed} failed")
        sys.exit(1 if self.failed or self.passed == 0 else 0)


def free_port(host="127.0.0.1"):
    """A loopback port nobody listens on right now (the kernel's pick)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_for_port(port, host="127.0.0.1", seconds=15.0):
    """True once something accepts connections on host:port, False after `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, port), timeout=1):
                return True
        except OSError:
            time.sleep(0.1)
    return False


class Command:
    """`remote-auth ...` running in the background; its stdout lines arrive on a queue, so a
    script can read a line (an authorization URL, a user code) while the command still runs."""

    def __init__(self, binary, args, env, stdin=subprocess.DEVNULL, timeout=60):
        self.args = args
        self.timeout = timeout
        self.process = subprocess.Popen([binary, *args], stdin=stdin, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=env)
        self.lines = queue.Queue()
        self.stdout, self.stderr = [], b""

        def pump_stdout():
            for line in self.process.stdout:
                text = line.decode("utf-8", "replace").rstrip("\n")
                self.stdout.append(text)
                self.lines.put(text)

        def pump_stderr():
            self.stderr = self.process.stderr.read()

        self.threads = [threading.Thread(target=pump_stdout, daemon=True),
                        threading.Thread(target=pump_stderr, daemon=True)]
        for thread in self.threads:
            thread.start()

    def line_matching(self, pattern, seconds=None):
        """The first match of `pattern` on a stdout line, or None once the command ends or time runs out."""
        deadline = time.monotonic() + (seconds or self.timeout)
        while time.monotonic() < deadline:
            try:
                match = re.search(pattern, self.lines.get(timeout=0.2))
                if match:
                    return match
            except queue.Empty:
                if self.process.poll() is not None and self.lines.empty():
                    return None
        return None

    def wait(self, seconds=None):
        """The exit status, killing the command if it runs past `seconds` (its timeout)."""
        try:
            self.process.wait(timeout=seconds or self.timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for thread in self.threads:
            thread.join(timeout=5)
        return self.process.returncode

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
        return self.wait()

    def describe(self):
        return (f"`remote-auth {' '.join(self.args)}` exit {self.process.returncode}, "
                f"stdout: {' | '.join(self.stdout)!r}, "
                f"stderr: {self.stderr.decode('utf-8', 'replace').strip()[-600:]!r}")
