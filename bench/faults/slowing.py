#!/usr/bin/env python3
"""A target with a planted slowdown: each answer takes BASE ms, plus RISE
times BASE more for every PERIOD seconds the server has run, so that a run
sees its service time climb. Usage: slowing.py PORT BASE_MS RISE PERIOD_S"""
import http.server
import sys
import time

port, base, rise, period = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
t0 = time.monotonic()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart

    def do_GET(self):
        elapsed = time.monotonic() - t0
        time.sleep(base / 1000 * (1 + rise * elapsed / period))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default, 5, drops connections opened together


Server(("127.0.0.1", port), Handler).serve_forever()
