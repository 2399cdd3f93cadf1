#!/usr/bin/env python3
"""A tiny misbehaving HTTP/1.1 server for the `teebench http` end-to-end tests.

usage: http_pyserver.py PORT MODE [ARG]
modes:
  ok        keep-alive responses with a 5-byte body
  chunked   keep-alive chunked responses
  stall N   like ok, but the N-th request overall waits 1 s before its response
  garbage   answers every request with bytes that are not HTTP
  midclose  sends half a response, then closes the connection
  silent    reads requests and never answers
  flaky     like ok, but every 10th request overall gets garbage
  close     "Connection: close" responses, then the server closes
  eof       HTTP/1.0 responses without a length: the body ends when the server closes
  slow N    like ok, but every response waits N ms
  record    like ok (with an X-Token header); prints each distinct request once:
            "REQ <request line>|<headers, sorted>[|BODY <body>]" (order aside)
  paths N   by path: /slow* as slow N, /silent* as silent, others as record
            (one server for several checks: a Python start is slow on a busy machine)
On SIGTERM it exits; it prints "served N" (complete responses sent) to stdout.
"""
import signal
import socket
import sys
import threading
import time

port, mode = int(sys.argv[1]), sys.argv[2]
arg = int(sys.argv[3]) if len(sys.argv) > 3 else 0
lock = threading.Lock()
count = {"requests": 0, "served": 0}
seen = set()

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello"
RECORD = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\nX-Token: t0k3n\r\n\r\nhello"
CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n"


def handle(conn):
    buf = b""
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
            head, buf = buf.split(b"\r\n\r\n", 1)
            m = mode
            if mode == "paths":
                path = head.split(b" ", 2)[1] if head.count(b" ") >= 2 else b"/"
                m = "slow" if path.startswith(b"/slow") else \
                    "silent" if path.startswith(b"/silent") else "record"
            if m == "record":
                lines = head.decode("latin-1").split("\r\n")
                length = [int(h.split(":", 1)[1]) for h in lines[1:]
                          if h.lower().startswith("content-length:")]
                while length and len(buf) < length[0]:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buf += data
                body, buf = (buf[:length[0]], buf[length[0]:]) if length else (b"", buf)
                key = "REQ " + lines[0] + "|" + "|".join(sorted(lines[1:]))
                if body:
                    key += "|BODY " + body.decode("latin-1")
                with lock:
                    if key not in seen:
                        seen.add(key)
                        print(key, flush=True)
            with lock:
                count["requests"] += 1
                n = count["requests"]
            if m == "silent":
                continue
            if mode == "garbage" or (mode == "flaky" and n % 10 == 0):
                conn.sendall(b"\x00\x01garbage that is not HTTP\r\n\r\n")
                continue
            if mode == "midclose":
                conn.sendall(OK[:30])
                return
            if mode == "stall" and n == arg:
                time.sleep(1.0)
            if m == "slow":
                time.sleep(arg / 1000.0)
            if mode == "close":
                conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello")
            elif mode == "eof":
                conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end")
            elif m == "record":
                conn.sendall(RECORD)
            else:
                conn.sendall(CHUNKED if mode == "chunked" else OK)
            with lock:
                count["served"] += 1
            if mode in ("close", "eof"):
                conn.shutdown(socket.SHUT_WR)
                return
    except OSError:
        pass
    finally:
        conn.close()


def main():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(512)

    def stop(*_):
        print("served %d" % count["served"], flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    while True:
        conn, _ = srv.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


main()
