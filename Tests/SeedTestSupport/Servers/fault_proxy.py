#!/usr/bin/env python3
"""A fault-injecting HTTP proxy in front of a real server, for seedbuild's publish and fetch tests.

Forwards every request to --upstream, except that:
  --fail-first N      answers the first N requests with --status (default 503);
  --drop-gets N       for the first N GETs of a .gz, sends the headers and half the body, then hangs up;
  --drop-puts N       for the first N PUTs, reads half the body, then hangs up without answering.
Every request line and its Range header are appended to --log. Prints the port it listens on.
"""
import argparse
import http.client
import http.server
import socket
import threading
import urllib.parse

parser = argparse.ArgumentParser()
parser.add_argument("--upstream", required=True)
parser.add_argument("--fail-first", type=int, default=0)
parser.add_argument("--status", type=int, default=503)
parser.add_argument("--drop-gets", type=int, default=0)
parser.add_argument("--drop-puts", type=int, default=0)
parser.add_argument("--log", required=True)
args = parser.parse_args()
upstream = urllib.parse.urlparse(args.upstream)
lock = threading.Lock()
counters = {"requests": 0, "gets": 0, "puts": 0}


def bump(name):
    with lock:
        counters[name] += 1
        return counters[name]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def handle_any(self):
        with open(args.log, "a") as log:
            log.write(f"{self.command} {self.path} range={self.headers.get('Range')}\n")
        length = int(self.headers.get("Content-Length") or 0)
        if bump("requests") <= args.fail_first:
            self.rfile.read(length)
            self.send_response(args.status)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.command == "PUT" and bump("puts") <= args.drop_puts:
            self.rfile.read(length // 2)
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        body = self.rfile.read(length) if length else None
        connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
        connection.request(self.command, self.path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        drop = self.command == "GET" and self.path.endswith(".gz") and response.status == 200 and bump("gets") <= args.drop_gets
        self.send_response(response.status)
        for key, value in response.getheaders():
            if key.lower() not in ("connection", "transfer-encoding", "content-length"):
                self.send_header(key, value)
        # A HEAD answer has no body but states the object's length.
        self.send_header("Content-Length", response.getheader("Content-Length", "0") if self.command == "HEAD" else str(len(data)))
        self.end_headers()
        if drop:
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_HEAD = do_PUT = do_MOVE = do_MKCOL = do_DELETE = handle_any


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
