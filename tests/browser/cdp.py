"""Headless Chromium over the DevTools protocol (websocket-client): one
browser per test module, pages opened at a given window width, JavaScript
evaluated in them (layout included), screenshots. The dashboard marks
<main data-rendered=ROUTE> once a route's data is on screen; open() waits for
it."""
import base64
import json
import re
import shutil
import subprocess
import threading
import time
import urllib.request

import websocket

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    def __init__(self, profile):
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--hide-scrollbars", "--remote-debugging-port=0",
             "--user-data-dir=" + str(profile), "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = None
        deadline = time.time() + 60
        for line in self.proc.stderr:
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
                break
            if time.time() > deadline:
                break
        if port is None:
            self.proc.kill()
            raise RuntimeError("chromium printed no DevTools address")
        # stderr must keep draining, or chromium blocks on a full pipe
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()
        pages = json.load(urllib.request.urlopen(
            f"http://127.0.0.1:{port}/json/list", timeout=30))
        url = next(p for p in pages if p["type"] == "page")["webSocketDebuggerUrl"]
        self.ws = websocket.create_connection(url, timeout=60)
        self.n = 0
        self.width = None

    def call(self, method, **params):
        self.n += 1
        self.ws.send(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get("id") == self.n:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})

    def eval(self, expr):
        """The value of a JavaScript expression (awaited if a promise)."""
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def open(self, url, width=1400, height=1000, route="home", timeout=60):
        """Loads url at a window of width x height and waits until the
        dashboard has rendered `route` (None: does not wait)."""
        if width != self.width:
            self.call("Emulation.setDeviceMetricsOverride", width=width,
                      height=height, deviceScaleFactor=1, mobile=False)
            self.width = width
        self.call("Page.navigate", url="about:blank")
        self.call("Page.navigate", url=url)
        if route is None:
            return
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                got = self.eval("document.querySelector('main') && "
                                "document.querySelector('main').dataset.rendered")
            except RuntimeError:
                got = None		# the page is between documents
            if got == route:
                return
            time.sleep(0.1)
        raise AssertionError(f"{url}: never rendered {route!r}")

    def html(self):
        return self.eval("document.documentElement.outerHTML")

    def screenshot(self, path, full_page=True):
        params = {"format": "png"}
        if full_page:
            m = self.call("Page.getLayoutMetrics")
            size = m.get("cssContentSize") or m["contentSize"]
            params.update(captureBeyondViewport=True, clip={
                "x": 0, "y": 0, "width": size["width"],
                "height": min(size["height"], 6000), "scale": 1})
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        with open(path, "wb") as f:
            f.write(data)
        return data

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.kill()
            self.proc.wait()
