#!/usr/bin/env python3
"""A fake AMD KDS for tests/e2e/attest_snp.sh: serves a folder's vcek.der, ask.pem +
ark.pem (as /cert_chain) and crl.der under /vcek/v1/<Product>/..., logs every request
line to --log, and answers each path's first request with HTTP 429 (Retry-After: 0);
under the prefix /always429 every request."""
import argparse
import http.server
import os
import re

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--dir", required=True)
ap.add_argument("--log", required=True)
args = ap.parse_args()
seen = set()


def read(name):
    with open(os.path.join(args.dir, name), "rb") as f:
        return f.read()


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        with open(args.log, "a") as f:
            f.write(self.path + "\n")
        path = self.path.split("?")[0]
        if path.startswith("/always429/") or path not in seen:
            seen.add(path)
            self.send_response(429)
            self.send_header("Retry-After", "0")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        m = re.fullmatch(r"/vcek/v1/(Milan|Genoa|Turin)/(.+)", path)
        body = None
        if m and m.group(2) == "cert_chain":
            body = read("ask.pem") + read("ark.pem")
        elif m and m.group(2) == "crl":
            body = read("crl.der")
        elif m and re.fullmatch(r"[0-9a-f]{128}", m.group(2)) and "blSPL=" in self.path:
            body = read("vcek.der")
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


http.server.ThreadingHTTPServer(("127.0.0.1", args.port), H).serve_forever()
