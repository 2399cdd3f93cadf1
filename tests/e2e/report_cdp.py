#!/usr/bin/env python3
"""Opens pages in one headless Chromium and reports what a person (and the network)
would see, for tests/e2e/report_browser.sh. Python standard library only.

    report_cdp.py CHROMIUM OUTDIR [--boxes=SELECTOR]... URL...

Drives Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: no
port, nothing for other processes to reach). Each URL is loaded with the network
emulated offline, and what the page asked for is recorded from the page's own
Network domain (the browser's background requests to its vendor's services are not
the page's and do not appear there). For URL number i it writes:
    OUTDIR/page<i>.json  {"url", "loaded", "requests": [url...], "console": [text...],
                          "log": [{"level", "text", "url"}...], "exceptions": [text...]}
    OUTDIR/page<i>.html  the DOM after loading (DOM.getOuterHTML: what --dump-dom prints)
    OUTDIR/page<i>.png   a screenshot of the whole page, 1280 CSS pixels wide
With --boxes=SELECTOR, page<i>.json also has "boxes": {SELECTOR: [[x, y, width,
height]...]}, the rendered border box of every element the CSS selector matches (in
document order; DOM.getBoxModel, CSS pixels, page coordinates): what the layout made of
them, not just that they are in the DOM (an element that is not rendered has no box and
is given as null).
Exits 0 when every page loaded, 1 otherwise (with a line on stderr).
"""
import base64
import json
import os
import queue
import subprocess
import sys
import threading
import time

DEADLINE = time.monotonic() + 90


class Browser:
    def __init__(self, chromium, outdir):
        cmd_r, cmd_w = os.pipe()  # we write commands; Chromium reads fd 3
        evt_r, evt_w = os.pipe()  # Chromium writes fd 4; we read

        def fds():
            a, b = os.dup(cmd_r), os.dup(evt_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.log = open(os.path.join(outdir, "chromium.log"), "wb")
        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars", "--remote-debugging-pipe",
             "--user-data-dir=" + os.path.join(outdir, "profile"), "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, preexec_fn=fds,
            pass_fds=(3, 4))  # preexec_fn runs before the other fds are closed
        os.close(cmd_r)
        os.close(evt_w)
        self.w = os.fdopen(cmd_w, "wb", buffering=0)
        self.q = queue.Queue()
        self.events = []
        self.next_id = 0
        threading.Thread(target=self._reader, args=(evt_r,), daemon=True).start()

    def _reader(self, fd):
        buf = b""
        with os.fdopen(fd, "rb", buffering=0) as r:
            while True:
                chunk = r.read(65536)
                if not chunk:
                    self.q.put(None)
                    return
                buf += chunk
                while b"\0" in buf:
                    msg, buf = buf.split(b"\0", 1)
                    self.q.put(json.loads(msg))

    def _get(self, until):
        left = min(until, DEADLINE) - time.monotonic()
        if left <= 0:
            raise TimeoutError("Chromium did not answer in time")
        m = self.q.get(timeout=left)
        if m is None:
            raise RuntimeError("Chromium closed the DevTools pipe")
        return m

    def send(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.w.write(json.dumps(msg).encode() + b"\0")
        until = time.monotonic() + timeout
        while True:
            m = self._get(until)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, session, timeout=30):
        for i, e in enumerate(self.events):
            if e.get("method") == method and e.get("sessionId") == session:
                return self.events.pop(i)
        until = time.monotonic() + timeout
        while True:
            m = self._get(until)
            self.events.append(m)
            if m.get("method") == method and m.get("sessionId") == session:
                return self.events.pop()

    def drain(self, seconds):
        until = time.monotonic() + seconds
        while True:
            try:
                self.events.append(self._get(until))
            except (TimeoutError, queue.Empty):
                return

    def close(self):
        try:
            self.send("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def arg_text(a):
    if "value" in a:
        return str(a["value"])
    return a.get("description", a.get("type", "?"))


def boxes(b, session, root, selector):
    ids = b.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector}, session)["nodeIds"]
    out = []
    for node in ids:
        try:
            q = b.send("DOM.getBoxModel", {"nodeId": node}, session)["model"]["border"]
        except RuntimeError:  # no layout object: not rendered
            out.append(None)
            continue
        xs, ys = q[0::2], q[1::2]
        out.append([min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)])
    return out


def visit(b, session, url, out_prefix, selectors=()):
    b.events = []
    b.send("Page.navigate", {"url": url}, session)
    loaded = True
    try:
        b.wait_event("Page.loadEventFired", session, timeout=30)
    except (TimeoutError, queue.Empty):
        loaded = False
    b.drain(0.5)  # late console messages and requests
    res = {"url": url, "loaded": loaded, "requests": [], "console": [], "log": [],
           "exceptions": []}
    for e in b.events:
        if e.get("sessionId") != session:
            continue
        m, p = e.get("method"), e.get("params", {})
        if m == "Network.requestWillBeSent":
            res["requests"].append(p["request"]["url"])
        elif m == "Runtime.consoleAPICalled":
            res["console"].append(p["type"] + ": " + " ".join(arg_text(a) for a in p.get("args", [])))
        elif m == "Runtime.exceptionThrown":
            res["exceptions"].append(p["exceptionDetails"].get("text", "?"))
        elif m == "Log.entryAdded":
            en = p["entry"]
            res["log"].append({"level": en.get("level"), "text": en.get("text"),
                               "url": en.get("url", "")})
    doc = b.send("DOM.getDocument", {"depth": -1}, session)
    html = b.send("DOM.getOuterHTML", {"nodeId": doc["root"]["nodeId"]}, session)["outerHTML"]
    if selectors:
        res["boxes"] = {sel: boxes(b, session, doc["root"]["nodeId"], sel) for sel in selectors}
    with open(out_prefix + ".html", "w", encoding="utf-8") as f:
        f.write(html)
    metrics = b.send("Page.getLayoutMetrics", {}, session)
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    height = max(1, min(int(size["height"]) + 1, 16000))
    shot = b.send("Page.captureScreenshot",
                  {"format": "png", "captureBeyondViewport": True,
                   "clip": {"x": 0, "y": 0, "width": 1280, "height": height, "scale": 1}},
                  session, timeout=60)
    with open(out_prefix + ".png", "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    res["height"] = height
    with open(out_prefix + ".json", "w") as f:
        json.dump(res, f, indent=1)
    return loaded


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: report_cdp.py CHROMIUM OUTDIR [--boxes=SELECTOR]... URL...")
    chromium, outdir = sys.argv[1], sys.argv[2]
    selectors = [a[len("--boxes="):] for a in sys.argv[3:] if a.startswith("--boxes=")]
    urls = [a for a in sys.argv[3:] if not a.startswith("--boxes=")]
    os.makedirs(outdir, exist_ok=True)
    b = Browser(chromium, outdir)
    ok = True
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for d in ("Page", "Network", "Runtime", "Log", "DOM"):
            b.send(d + ".enable", {}, session)
        b.send("Network.emulateNetworkConditions",
               {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
               session)
        b.send("Emulation.setDeviceMetricsOverride",
               {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session)
        for i, url in enumerate(urls):
            if not visit(b, session, url, os.path.join(outdir, "page%d" % i), selectors):
                print("report_cdp: %s did not finish loading" % url, file=sys.stderr)
                ok = False
    except Exception as e:  # one line, like teebench's own errors
        print("report_cdp: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        ok = False
    finally:
        b.close()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
