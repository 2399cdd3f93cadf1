#!/usr/bin/env python3
"""A stand-in for Chromium in tests/e2e/tlsn_bad.sh: `teebench tlsn session --chromium
THIS` starts it as it starts the browser (flags, then the page's URL last). What it does
comes from TLSN_FAKE (same for both parties unless TLSN_FAKE_PROVER/_VERIFIER say):
  sleep         never loads the page (the startup timeout)
  exit:N        exits with code N at once
  stall         asks for its configuration, starts the setup phase, never connects
  proxy         (prover) asks, starts the request phase, opens the proxy's WebSocket,
                sends a TLS ClientHello-like record, reports how the proxy answered
  error         asks, then reports an error in its setup phase
"""
import base64, json, os, socket, sys, time, urllib.request

url = sys.argv[-1]
base = url.rsplit("/", 1)[0]
role = url.rsplit("/", 1)[1].split(".")[0]
mode = os.environ.get("TLSN_FAKE_" + role.upper(), os.environ.get("TLSN_FAKE", "sleep"))


def post(name, body):
    req = urllib.request.Request(base + "/api/" + name, data=json.dumps(body).encode(),
                                 method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def report(**kw):
    kw["role"] = role
    return post("report", kw)


def ws_proxy(ws_url, payload):
    """Opens ws_url, sends one masked binary frame; returns what came back (frames'
    payloads) and the close code."""
    hostport, path = ws_url[len("ws://"):].split("/", 1)
    host, port = hostport.split(":")
    s = socket.create_connection((host, int(port)), timeout=10)
    s.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n\r\n"
               % (path, hostport, base64.b64encode(os.urandom(16)).decode())).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    if b" 101 " not in head.split(b"\r\n")[0]:
        return b"", head.split(b"\r\n")[0].decode()
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    s.sendall(bytes([0x82, 0x80 | len(payload)]) + mask + body)
    data, code = b"", None
    buf = b""
    while code is None:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
        while len(buf) >= 2:
            n, h = buf[1] & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    break
                n, h = int.from_bytes(buf[2:4], "big"), 4
            if len(buf) < h + n:
                break
            op, p, buf = buf[0] & 0x0F, buf[h:h + n], buf[h + n:]
            if op == 8:
                code = "%d %s" % (int.from_bytes(p[:2], "big"), p[2:].decode())
            else:
                data += p
    return data, code


if mode == "sleep":
    time.sleep(3600)
elif mode.startswith("exit:"):
    sys.exit(int(mode[5:]))
cfg = post("config", {"role": role})
if mode == "stall":
    report(event="phase", phase="setup", state="start")
    time.sleep(3600)
elif mode == "error":
    report(event="phase", phase="setup", state="start")
    report(event="error", phase="setup", message="fake failure")
    time.sleep(3600)
elif mode == "proxy":
    if role != "prover":
        time.sleep(3600)
    report(event="phase", phase="request", state="start")
    data, code = ws_proxy(cfg["proxy"], b"\x16\x03\x01\x00\x05hello")
    report(event="error", phase="request",
           message="proxy answered %d bytes %r, close %s" % (len(data), data[:12], code))
    time.sleep(3600)
