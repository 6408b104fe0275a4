#!/usr/bin/env python3
"""A hostile HTTP server for seedbuild's fetch tests and memory measurements.

Serves the files under --root as a static server would (GET with Range and If-Range on an ETag, HEAD),
except that GETs of a path ending in --target are answered with --attack:
  huge-length   200 with Content-Length: 3 GiB, then zeros for as long as the client reads;
  endless       200 with no Content-Length, zeros until the client hangs up;
  oversized     200 with the file's bytes and Content-Length, then 1 MiB more than the file;
  encoded       200 with the file's bytes and Content-Length, marked Content-Encoding: gzip;
  trickle       the file's real headers, then its bytes one per second;
  stall         the file's real headers, then nothing.
HEAD is always answered truthfully. Every request line is appended to --log. It binds 127.0.0.1 on a
free port, prints the port, and stops by itself after --lifetime seconds; every attack loop also
stops then, or after --max-bytes.
"""
import argparse
import email.utils
import http.server
import os
import threading
import time

parser = argparse.ArgumentParser()
parser.add_argument("--root", required=True)
parser.add_argument("--target", required=True)
parser.add_argument("--attack", required=True, choices=["huge-length", "endless", "oversized", "encoded", "trickle", "stall"])
parser.add_argument("--log", required=True)
parser.add_argument("--lifetime", type=float, default=60)
parser.add_argument("--max-bytes", type=int, default=8 << 30)
args = parser.parse_args()
stop_at = time.monotonic() + args.lifetime
zeros = bytes(1 << 20)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def file(self):
        path = os.path.abspath(os.path.join(args.root, self.path.split("?")[0].lstrip("/")))
        if not path.startswith(os.path.abspath(args.root)) or not os.path.isfile(path):
            return None
        return path

    def headers_for(self, path):
        info = os.stat(path)
        return info.st_size, '"%x-%x"' % (int(info.st_mtime), info.st_size), email.utils.formatdate(info.st_mtime, usegmt=True)

    def do_HEAD(self):
        self.log()
        path = self.file()
        if path is None:
            return self.empty(404)
        size, etag, modified = self.headers_for(path)
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", modified)
        self.end_headers()

    def do_GET(self):
        self.log()
        path = self.file()
        if path is None:
            return self.empty(404)
        if self.path.endswith(args.target):
            return self.attack(path)
        size, etag, modified = self.headers_for(path)
        start = 0
        wanted = self.headers.get("Range", "")
        if wanted.startswith("bytes=") and self.headers.get("If-Range") in (None, etag):
            start = int(wanted[6:].split("-")[0])
            if start >= size:
                return self.empty(416)
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read()
        self.send_response(206 if start else 200)
        if start:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, size - 1, size))
        self.send_header("Content-Length", str(len(data)))
        self.send_header("ETag", etag)
        self.end_headers()
        self.wfile.write(data)

    def attack(self, path):
        size, etag, _ = self.headers_for(path)
        with open(path, "rb") as f:
            data = f.read()
        self.send_response(200)
        if args.attack == "huge-length":
            self.send_header("Content-Length", str(3 << 30))
        elif args.attack in ("oversized", "encoded", "trickle", "stall"):
            self.send_header("Content-Length", str(size + (1 << 20) if args.attack == "oversized" else size))
            self.send_header("ETag", etag)
            if args.attack == "encoded":
                self.send_header("Content-Encoding", "gzip")
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        sent = 0
        try:
            if args.attack in ("huge-length", "endless"):
                while time.monotonic() < stop_at and sent < args.max_bytes:
                    self.wfile.write(zeros)
                    sent += len(zeros)
            elif args.attack == "oversized":
                self.wfile.write(data + zeros)
            elif args.attack == "encoded":
                self.wfile.write(data)
            elif args.attack == "trickle":
                for byte in data:
                    if time.monotonic() >= stop_at:
                        break
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(1)
            else:
                while time.monotonic() < stop_at:
                    time.sleep(0.2)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def empty(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log(self):
        with open(args.log, "a") as log:
            log.write(f"{self.command} {self.path} cache={self.headers.get('Cache-Control')} range={self.headers.get('Range')}\n")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Timer(args.lifetime, server.shutdown).start()
print(server.server_address[1], flush=True)
server.serve_forever()
