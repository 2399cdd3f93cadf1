#!/usr/bin/env python3
"""A PCCS-like HTTP server for teebench's attest end-to-end tests.

Serves the collateral of one testdata/tdx case the way an Intel PCS/PCCS does (v4 API):
  GET /sgx/certification/v4/pckcrl?ca=processor|platform[&encoding=der]
      -> the PCK CRL as DER, header SGX-PCK-CRL-Issuer-Chain (URL-encoded PEM)
  GET /tdx/certification/v4/tcb?fmspc=HEX
      -> {"tcbInfo": <the exact signed bytes>, "signature": hex},
         header TCB-Info-Issuer-Chain; 404 for an unknown FMSPC
  GET /tdx/certification/v4/qe/identity
      -> {"enclaveIdentity": <bytes>, "signature": hex}, header SGX-Enclave-Identity-Issuer-Chain
  GET /sgx/certification/v4/rootcacrl -> the root CA CRL as DER
A path prefix selects a misbehaviour: /slow/... sleeps --slow-seconds before answering,
/broken/... answers 200 with a truncated body and no issuer-chain header, /forged/...
serves a TCB info whose nextUpdate says 2099 under the original signature (a forged
answer: it must fail verification and never be cached).
Every request is appended to --log (one line: the path), so tests can count fetches.
Usage: pccs_server.py --port P --case DIR [--log FILE] [--slow-seconds S]
"""
import argparse
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def load_case(case_dir):
    with open(case_dir + "/collateral.json") as f:
        c = json.load(f)
    fmspc = json.loads(c["tcb_info"])["fmspc"].upper()
    return c, fmspc


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def send(self, status, body, headers=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        srv = self.server
        with srv.lock:
            with open(srv.log, "a") as f:
                f.write(self.path + "\n")
        url = urllib.parse.urlsplit(self.path)
        path, q = url.path, urllib.parse.parse_qs(url.query)
        mode = "normal"
        for m in ("slow", "broken", "forged"):
            if path.startswith("/" + m + "/"):
                mode, path = m, path[len(m) + 1:]
        if mode == "slow":
            time.sleep(srv.slow)
        c = srv.col
        quote = lambda pem: urllib.parse.quote(pem, safe="")
        if path == "/sgx/certification/v4/pckcrl":
            ca = q.get("ca", [""])[0]
            if ca not in ("processor", "platform"):
                return self.send(400, b"bad ca\n")
            body = bytes.fromhex(c["pck_crl"])
            hdr = [("SGX-PCK-CRL-Issuer-Chain", quote(c["pck_crl_issuer_chain"])),
                   ("Content-Type", "application/pkix-crl")]
        elif path == "/tdx/certification/v4/tcb":
            if q.get("fmspc", [""])[0].upper() != srv.fmspc:
                return self.send(404, b"")
            tcb = c["tcb_info"]
            if mode == "forged":
                nu = json.loads(tcb)["nextUpdate"]
                tcb = tcb.replace('"nextUpdate":"%s"' % nu, '"nextUpdate":"2099%s"' % nu[4:])
                assert tcb != c["tcb_info"]
            body = ('{"tcbInfo":%s,"signature":"%s"}' % (tcb, c["tcb_info_signature"])).encode()
            hdr = [("TCB-Info-Issuer-Chain", quote(c["tcb_info_issuer_chain"])),
                   ("Content-Type", "application/json")]
        elif path == "/tdx/certification/v4/qe/identity":
            body = ('{"enclaveIdentity":%s,"signature":"%s"}' % (c["qe_identity"], c["qe_identity_signature"])).encode()
            hdr = [("SGX-Enclave-Identity-Issuer-Chain", quote(c["qe_identity_issuer_chain"])),
                   ("Content-Type", "application/json")]
        elif path == "/sgx/certification/v4/rootcacrl":
            body = bytes.fromhex(c["root_ca_crl"])
            hdr = [("Content-Type", "application/pkix-crl")]
        else:
            return self.send(404, b"")
        if mode == "broken":
            return self.send(200, body[: len(body) // 3])
        self.send(200, body, hdr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--log", default="/dev/null")
    ap.add_argument("--slow-seconds", type=float, default=5.0)
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    srv.col, srv.fmspc = load_case(a.case)
    srv.log, srv.slow, srv.lock = a.log, a.slow_seconds, threading.Lock()
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
