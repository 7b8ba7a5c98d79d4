"""mitmproxy addon for mitm_pinning.sh: logs what the man in the middle sees, one line per event.

    mitmdump -s scripts/interop/mitm_addon.py --set auth_log=FILE ...

Appends to FILE (flushed at once, so the script can read it while mitmdump runs):

    client-connected 127.0.0.1:PORT
    tls-established 127.0.0.1:PORT
    tls-failed 127.0.0.1:PORT ERROR
    request 127.0.0.1:PORT GET /basic/ authorization: Basic YWxpY2U6d29uZGVybGFuZA==
    request 127.0.0.1:PORT GET /basic/ authorization: (none)

A 'request' line is written as soon as a request's headers have arrived, before it is forwarded:
a client that refuses the man in the middle before sending anything leaves no 'request' line.
Works with Debian's mitmproxy 8 and PyPI's 10 and 11 (the hooks used are there since 8.0).
"""

from mitmproxy import ctx


def _peer(client) -> str:
    try:
        host, port = client.peername[:2]
        return f"{host}:{port}"
    except Exception:  # noqa: BLE001 - a log line must never break the proxy
        return "?"


class AuthLog:
    def load(self, loader):
        loader.add_option("auth_log", str, "", "File that gets one line per connection, TLS handshake and request.")

    def _write(self, line: str) -> None:
        path = ctx.options.auth_log
        if not path:
            return
        with open(path, "a", encoding="utf-8") as f:
            f.write(line.replace("\n", " ") + "\n")

    def client_connected(self, client):
        self._write(f"client-connected {_peer(client)}")

    def tls_established_client(self, data):
        self._write(f"tls-established {_peer(data.context.client)}")

    def tls_failed_client(self, data):
        self._write(f"tls-failed {_peer(data.context.client)} {data.conn.error or ''}".rstrip())

    def request(self, flow):
        value = flow.request.headers.get("Authorization")
        shown = value if value is not None else "(none)"
        self._write(f"request {_peer(flow.client_conn)} {flow.request.method} {flow.request.path} authorization: {shown}")


addons = [AuthLog()]
