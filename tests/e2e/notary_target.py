#!/usr/bin/env python3
"""A small HTTPS target for the notary's end-to-end tests (not a test itself).

usage: notary_target.py PORT CERT KEY

Paths: /formats/json?size=N (N KiB of JSON, Content-Length), /chunked (chunked
body), /close (no length: ends with close_notify), /bytes?size=N (N bytes,
Content-Length), /stall (never answers), /trickle (announces 1000 bytes and
sends one every 0.5 s). Listens on 127.0.0.1 only."""
import http.server
import ssl
import sys
import time
import urllib.parse


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, body, ctype="application/json"):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        if u.path == "/formats/json":
            n = int(q.get("size", ["4"])[0]) * 1024
            item = b'{"id":1,"name":"teebench","ok":true},'
            body = b"[" + item * (n // len(item)) + b"{}]"
            self._send(body)
        elif u.path == "/bytes":
            self._send(b"x" * int(q.get("size", ["100"])[0]), "application/octet-stream")
        elif u.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            for part in (b"hello ", b"chunked ", b"world"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            self.close_connection = True
        elif u.path == "/close":
            self.wfile.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close\n")
            self.wfile.flush()
            self.connection.unwrap()  # close_notify marks the end of the body
            self.close_connection = True
        elif u.path == "/stall":
            time.sleep(30)
        elif u.path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
            try:
                for _ in range(1000):
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.5)
            except OSError:
                pass  # the notary gave up
            self.close_connection = True
        else:
            self.send_error(404)


def main():
    port, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    srv.daemon_threads = True
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
