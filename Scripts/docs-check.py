#!/usr/bin/env python3
"""Opens the built documentation in headless Chromium, as a reader would, and checks each page.

    Scripts/docs-check.py [SITE_DIR]     (default .build/docs, built by Scripts/docs.sh)

It serves SITE_DIR on 127.0.0.1 (a free port), loads the landing pages and articles below, and
fails when a page renders no content (its title never appears in the rendered DOM: a DocC page is
a JavaScript app, so the HTML file alone says nothing), when the page logs a console error or
throws, or when it requests a file the site does not have. A screenshot of each page is saved in
.build/docs-check/.

Chromium is driven through its DevTools protocol over a WebSocket; the few lines of WebSocket
client below keep the script free of anything pip would have to install.
"""
import base64
import functools
import http.server
import json
import os
import pathlib
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

# (screenshot name, path under the site, the title the rendered page must show). A landing page
# gets a second screenshot scrolled to its Topics, where every public symbol is grouped.
PAGES = [
    ("storedkit-landing", "StoredKit/documentation/storedkit/", "StoredKit"),
    ("storedkit-getting-started", "StoredKit/documentation/storedkit/gettingstarted", "Getting started"),
    ("storedkit-choosing-a-store", "StoredKit/documentation/storedkit/choosingastore", "Choosing a store"),
    ("storedkitpostgres-landing", "StoredKitPostgres/documentation/storedkitpostgres/", "StoredKitPostgres"),
    (
        "storedkitpostgres-sharing-preferences-across-machines",
        "StoredKitPostgres/documentation/storedkitpostgres/sharingpreferencesacrossmachines",
        "Sharing preferences across machines",
    ),
    ("tabkit-landing", "TabKit/documentation/tabkit/", "TabKit"),
    (
        "tabkit-persisting-a-tab-customization",
        "TabKit/documentation/tabkit/persistingatabcustomization",
        "Persisting a tab customization",
    ),
]
# Upper bounds on waiting for the browser, so a broken setup fails instead of hanging. They are
# not performance thresholds: a healthy page is ready in well under a second.
BROWSER_START_LIMIT = 60
RENDER_LIMIT = 60
# After the title appears, events are collected a little longer, so an error logged by a late
# request (an image, a search index) is still seen.
SETTLE_SECONDS = 1.5


class WebSocket:
    """A minimal RFC 6455 client: text frames, client-side masking, fragmented replies."""

    def __init__(self, url: str):
        assert url.startswith("ws://"), url
        host_port, _, path = url[len("ws://") :].partition("/")
        host, _, port = host_port.partition(":")
        # A browser that stops answering fails the check instead of hanging it.
        self.sock = socket.create_connection((host, int(port)), timeout=RENDER_LIMIT)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the browser closed the DevTools connection during the handshake")
            response += chunk
        head, _, self.buffer = response.partition(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"DevTools refused the WebSocket: {head.decode(errors='replace')}")

    def send(self, text: str) -> None:
        payload = text.encode()
        header = bytes([0x81])  # FIN, text frame
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        mask = os.urandom(4)
        masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _read(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("the browser closed the DevTools connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def receive(self) -> str:
        message = b""
        while True:
            first, second = self._read(2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack(">H", self._read(2))
            elif length == 127:
                (length,) = struct.unpack(">Q", self._read(8))
            payload = self._read(length)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise ConnectionError("the browser closed the DevTools connection")
            if opcode in (0x9, 0xA):  # ping / pong: nothing to do for a short session
                continue
            message += payload
            if first & 0x80:
                return message.decode()


class DevTools:
    """Commands to one page target, and the events that arrive meanwhile."""

    def __init__(self, url: str):
        self.socket = WebSocket(url)
        self.next_id = 0
        self.events: list[dict] = []

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.receive())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    missing: list[str] = []

    def log_message(self, format, *args):  # the check prints its own summary
        pass

    def send_error(self, code, message=None, explain=None):
        if code == 404:
            QuietHandler.missing.append(self.path)
        super().send_error(code, message, explain)


def serve(site: pathlib.Path) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def start_browser(profile: str) -> tuple[subprocess.Popen, int]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("docs-check: chromium is not installed (make docs-check installs Debian's 'chromium')")
    arguments = [
        browser,
        "--headless",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-extensions",
        "--hide-scrollbars",
        "--disable-dev-shm-usage",  # containers often give /dev/shm only 64 MB
        "--window-size=1280,1000",
        f"--user-data-dir={profile}",
        "--remote-debugging-port=0",
        "about:blank",
    ]
    if os.geteuid() == 0:
        arguments.insert(1, "--no-sandbox")  # Chromium's sandbox refuses to run as root
    process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port_file = pathlib.Path(profile, "DevToolsActivePort")
    deadline = time.monotonic() + BROWSER_START_LIMIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            sys.exit(f"docs-check: chromium exited with status {process.returncode} before it was ready")
        if port_file.exists() and port_file.read_text().strip():
            return process, int(port_file.read_text().split()[0])
        time.sleep(0.1)
    process.kill()
    sys.exit(f"docs-check: chromium did not open its DevTools port within {BROWSER_START_LIMIT} s")


def page_target(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=RENDER_LIMIT) as response:
        targets = json.load(response)
    return next(target["webSocketDebuggerUrl"] for target in targets if target["type"] == "page")


def problems_in(events: list[dict]) -> list[str]:
    """Console errors, uncaught exceptions and failed loads, as the browser reported them."""
    problems = []
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
            problems.append(f"console.{params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            problems.append(f"uncaught: {details.get('exception', {}).get('description', details.get('text'))}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            problems.append(f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".strip())
    return problems


CONTENT_PROBE = """(() => {
    const main = document.querySelector('main');
    const title = document.querySelector('main h1');
    return {
        title: title ? title.textContent.trim() : null,
        text: main ? main.innerText.length : 0,
        sections: document.querySelectorAll('main h2, main h3').length,
        code: document.querySelectorAll('main pre').length,
        links: document.querySelectorAll('main a[href]').length,
    };
})()"""


TOPICS_PROBE = """(() => {
    const topics = [...document.querySelectorAll('main h2')].find(h => h.textContent.trim() === 'Topics');
    if (topics) { topics.scrollIntoView({block: 'start', behavior: 'instant'}); window.scrollBy(0, -80); }
    return Boolean(topics);
})()"""


def check_page(tools: DevTools, base: str, name: str, path: str, title: str, shots: pathlib.Path) -> list[str]:
    tools.events.clear()
    QuietHandler.missing.clear()
    tools.call("Page.navigate", url=base + path)
    deadline = time.monotonic() + RENDER_LIMIT
    content = None
    while time.monotonic() < deadline:
        content = tools.evaluate(CONTENT_PROBE)
        if content and content["title"] == title:
            break
        time.sleep(0.2)
    settle = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < settle:
        tools.evaluate("1")  # lets the events that arrived meanwhile be read
        time.sleep(0.1)
    shot = base64.b64decode(tools.call("Page.captureScreenshot", format="png")["data"])
    (shots / f"{name}.png").write_bytes(shot)
    if name.endswith("-landing") and tools.evaluate(TOPICS_PROBE):
        time.sleep(0.3)  # the scroll is smooth in some themes: let it end before the picture
        shot = base64.b64decode(tools.call("Page.captureScreenshot", format="png")["data"])
        (shots / f"{name}-topics.png").write_bytes(shot)

    problems = problems_in(tools.events)
    problems += [f"the site has no {missing}" for missing in QuietHandler.missing]
    if not content or content["title"] != title:
        found = content["title"] if content else None
        problems.append(f"rendered no page titled '{title}' within {RENDER_LIMIT} s (title found: {found!r})")
    elif content["text"] < 200:
        problems.append(f"rendered only {content['text']} characters of content")
    summary = (
        f"{content['text']} characters, {content['sections']} headings, {content['code']} code listings, "
        f"{content['links']} links"
        if content
        else "nothing rendered"
    )
    status = "ok" if not problems else "FAILED"
    print(f"docs-check: {status:6} /{path}  '{title}': {summary}; screenshot {shots / (name + '.png')}")
    for problem in problems:
        print(f"docs-check:          {problem}")
    return problems


def main() -> int:
    site = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".build/docs").resolve()
    if not (site / "StoredKit" / "index.html").exists():
        sys.exit(f"docs-check: no documentation in {site}; run 'make docs' first")
    shots = site.parent / "docs-check"
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)

    server = serve(site)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    print(f"docs-check: serving {site} at {base}")
    with tempfile.TemporaryDirectory(prefix="docs-check-chromium-") as profile:
        browser, port = start_browser(profile)
        try:
            tools = DevTools(page_target(port))
            for domain in ("Page", "Runtime", "Log"):
                tools.call(f"{domain}.enable")
            failures = 0
            for name, path, title in PAGES:
                failures += bool(check_page(tools, base, name, path, title, shots))
        finally:
            browser.terminate()
            try:
                browser.wait(timeout=10)
            except subprocess.TimeoutExpired:
                browser.kill()
                browser.wait()
            server.shutdown()
    if failures:
        print(f"docs-check: {failures} of {len(PAGES)} pages failed", file=sys.stderr)
        return 1
    print(f"docs-check: all {len(PAGES)} pages rendered without errors; screenshots in {shots}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
