"""What every Python interop peer shares: counting checks, the closing line that
scripts/interop.sh adds to its total, free loopback ports and waiting for a server.

    from harness import Checks
    checks = Checks("oauthlib")
    checks.check(ok, "what was expected")     # prints 'FAIL: ...' when not ok; returns ok
    checks.finish()                           # 'oauthlib: N passed, M failed'; exits 1 on a failure

The shell peers share scripts/interop/lib.sh the same way.
"""
import socket
import sys
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
