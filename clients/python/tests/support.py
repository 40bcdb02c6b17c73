"""Real servers for the client tests: the Winnow stack (started through Node), fixture pages, and a scripted upstream."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Union

REPO_ROOT = Path(__file__).resolve().parents[3]

PRODUCT_PAGE = """<!doctype html><html><head><title>Ridgeline Trail Shoe | Northpeak</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Ridgeline Trail Shoe",
"brand": {"@type": "Brand", "name": "Northpeak"}, "offers": {"@type": "Offer", "price": "129.99", "priceCurrency": "USD"}}</script>
</head><body><h1>Ridgeline Trail Shoe</h1><p>Price: $129.99</p></body></html>"""


def serve(handler: type) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def origin(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


class FixturePages(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        status, body = (200, PRODUCT_PAGE) if self.path == "/product" else (404, "<h1>Gone</h1>")
        payload = body.encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "text/html; charset=utf-8")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


Action = Union[str, Dict[str, Any]]


class ScriptedUpstream:
    """In front of the gateway: the next requests fail as scripted (a status, "hang", "drop"), then are forwarded."""

    def __init__(self, target: str) -> None:
        self.script: List[Action] = []
        self.seen: List[Dict[str, str]] = []
        self.release = threading.Event()
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                upstream.seen.append({k.lower(): v for k, v in self.headers.items()})
                action = upstream.script.pop(0) if upstream.script else "forward"
                if action == "hang":
                    upstream.release.wait(30)
                    return
                if action == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                if action == "forward":
                    status, headers, payload = forward(target + self.path, body, self.headers)
                else:
                    status, headers, payload = action["status"], action.get("headers", {}), json.dumps(
                        action.get("body", {"type": "about:blank", "title": "scripted", "status": action["status"]})
                    ).encode()
                    headers = {"content-type": "application/problem+json", **headers}
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = serve(Handler)
        self.url = origin(self.server)

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def forward(url: str, body: bytes, headers: Any) -> tuple:
    request = urllib.request.Request(url, data=body, method="POST", headers={k: v for k, v in headers.items() if k.lower() not in ("host", "content-length")})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, _end_to_end(response.headers), response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, _end_to_end(error.headers), error.read()


def _end_to_end(headers: Any) -> Dict[str, str]:
    """The gateway's answer headers a proxy passes on (the body's length and framing are the proxy's own)."""
    return {k: v for k, v in headers.items() if k.lower() not in ("content-length", "transfer-encoding", "connection", "date", "server", "keep-alive")}


class Stack:
    """The four services as processes, via scripts/dist/run-stack.js (built by `npm run build`)."""

    def __init__(self, egress_allow: str) -> None:
        self.log = tempfile.TemporaryFile()
        env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), "WINNOW_EGRESS_ALLOW": egress_allow}
        self.process = subprocess.Popen(
            ["node", str(REPO_ROOT / "scripts/dist/run-stack.js")],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        line = self.process.stdout.readline() if self.process.stdout else b""
        if not line:
            self.log.seek(0)
            raise RuntimeError("the stack did not start:\n" + self.log.read().decode("utf-8", "replace"))
        ready = json.loads(line)
        self.gateway_url: str = ready["gateway_url"]
        self.api_key: str = ready["api_key"]

    def stop(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        if self.process.stdout:
            self.process.stdout.close()
        self.log.close()
