#!/usr/bin/env python3
"""A small loopback web server for the sync tests: git's smart HTTP through git-http-backend.

Modes:
  (default)   smart HTTP for the repositories under --root, optionally behind HTTP basic
              auth (--user/--password) and TLS (--cert/--key). With --negotiate, the
              server's 401 offers Kerberos ("WWW-Authenticate: Negotiate") before basic
              auth, with --negotiate-only instead of it; the server cannot check a Kerberos
              token, so only basic auth ever gets in.
  --silent    a plain TCP listener that accepts connections and never answers, for timeouts.
              It prints "accepted connection from 127.0.0.1 port N" on stdout for each one,
              so a test can tell that a client is now waiting on it.

A GET of /_quiesce (no auth) is answered once every connection accepted before it has been
served and closed: a test that killed a client calls it to know that the server is no longer
writing to the repositories on that client's behalf.

While the file named by --busy-file holds a number N > 0, the next N requests are answered
with 503 (the count goes down by one each time): the test writes the file when it wants a
busy server.

It binds 127.0.0.1 only, on --port (0: a free port the kernel picks) and, once it listens,
prints "listening on 127.0.0.1 port N" on stdout: that line is how the tests know it is ready.
Standard library only; runs until killed.
"""

import argparse
import base64
import hmac
import http.server
import os
import socket
import socketserver
import ssl
import subprocess
import sys
import tempfile
import threading

LOOPBACK = "127.0.0.1"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--root", help="GIT_PROJECT_ROOT: the directory holding the repositories")
    p.add_argument("--user", help="require HTTP basic auth with this user name")
    p.add_argument("--password", default="")
    p.add_argument("--negotiate", action="store_true", help="offer Negotiate (Kerberos) before basic auth")
    p.add_argument("--negotiate-only", action="store_true", help="offer Negotiate (Kerberos) and nothing else")
    p.add_argument("--cert", help="serve https with this PEM certificate")
    p.add_argument("--key", help="the certificate's PEM private key")
    p.add_argument("--busy-file", help="while it holds N > 0, answer the next N requests with 503")
    p.add_argument("--silent", action="store_true", help="accept connections and never answer")
    args = p.parse_args()
    if not args.silent and not args.root:
        p.error("--root is required unless --silent")
    if bool(args.cert) != bool(args.key):
        p.error("--cert and --key go together")
    return args


def announce(port):
    sys.stdout.write("listening on %s port %d\n" % (LOOPBACK, port))
    sys.stdout.flush()


def run_silent(port):
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((LOOPBACK, port))
    listener.listen(128)
    announce(listener.getsockname()[1])
    held = []  # keep every accepted socket open, and never read or write it
    while True:
        conn, peer = listener.accept()
        held.append(conn)
        sys.stdout.write("accepted connection from %s port %d\n" % peer)
        sys.stdout.flush()


class Busy:
    """The 503 countdown kept in a file, so the test can set it while the server runs."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()

    def take(self):
        if not self.path:
            return False
        with self.lock:
            try:
                with open(self.path) as f:
                    left = int(f.read().strip() or "0")
            except (FileNotFoundError, ValueError):
                return False
            if left <= 0:
                return False
            temporary = self.path + ".tmp"
            with open(temporary, "w") as f:
                f.write("%d\n" % (left - 1))
            os.replace(temporary, self.path)
            return True


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "todo-test-git-http"

    def do_GET(self):
        self.serve()

    def do_POST(self):
        self.serve()

    def serve(self):
        config = self.server.config
        if self.command == "GET" and self.path == "/_quiesce":
            self.server.wait_until_alone()
            return self.reply(200, b"quiet\n")
        if config.busy.take():
            return self.reply(503, b"server busy, try again later\n", [("Retry-After", "1")])
        if config.user is not None and not self.authorized(config):
            offers = [("WWW-Authenticate", "Negotiate")] if config.negotiate or config.negotiate_only else []
            if not config.negotiate_only:
                offers.append(("WWW-Authenticate", 'Basic realm="house"'))
            return self.reply(401, b"authentication required\n", offers)
        body = self.read_body()
        if body is None:
            return self.reply(400, b"bad request body\n")
        self.run_backend(config, body)

    def authorized(self, config):
        header = self.headers.get("Authorization", "")
        scheme, _, encoded = header.partition(" ")
        if scheme.lower() != "basic":
            return False
        try:
            user, _, password = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return False
        same_user = hmac.compare_digest(user.encode(), config.user.encode())
        same_password = hmac.compare_digest(password.encode(), config.password.encode())
        return same_user and same_password

    def read_body(self):
        """The request body in a temporary file, de-chunked; None when it is malformed."""
        spool = tempfile.TemporaryFile()
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            while True:
                line = self.rfile.readline(1024)
                try:
                    size = int(line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    return None
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                if not self.copy(size, spool) or self.rfile.readline(1024) not in (b"\r\n", b"\n"):
                    return None
        else:
            try:
                length = int(self.headers.get("Content-Length", "0"))
            except ValueError:
                return None
            if length < 0 or not self.copy(length, spool):
                return None
        spool.seek(0)
        return spool

    def copy(self, size, out):
        while size > 0:
            data = self.rfile.read(min(size, 1 << 16))
            if not data:
                return False
            out.write(data)
            size -= len(data)
        return True

    def run_backend(self, config, body):
        path, _, query = self.path.partition("?")
        length = os.fstat(body.fileno()).st_size
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": config.root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "SERVER_SOFTWARE": self.server_version,
            "SERVER_NAME": LOOPBACK,
            "SERVER_PORT": str(self.server.server_address[1]),
            "REMOTE_ADDR": self.client_address[0],
            "REQUEST_METHOD": self.command,
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "CONTENT_LENGTH": str(length),
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
        }
        if config.user is not None:
            env["REMOTE_USER"] = config.user
            env["AUTH_TYPE"] = "Basic"
        for header in ("Content-Encoding", "Git-Protocol", "Accept"):
            value = self.headers.get(header)
            if value is not None:
                env["HTTP_" + header.upper().replace("-", "_")] = value
        done = subprocess.run(
            [config.backend], stdin=body, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        body.close()
        if done.stderr:
            self.log_message("git-http-backend: %s", done.stderr.decode("utf-8", "replace").strip())
        head, separator, payload = done.stdout.partition(b"\r\n\r\n")
        if not separator:
            head, separator, payload = done.stdout.partition(b"\n\n")
        if not separator:
            return self.reply(500, b"git-http-backend gave no headers\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split(" ", 1)[0])
            elif name:
                headers.append((name.strip(), value.strip()))
        self.reply(status, payload, headers)

    def reply(self, status, payload, headers=()):
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                self.send_header(name, value)
        if not any(name.lower() == "content-type" for name, _ in headers):
            self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def log_message(self, format, *args):
        sys.stderr.write("%s %s\n" % (self.address_string(), format % args))
        sys.stderr.flush()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port, config, tls):
        self.config = config
        self.tls = tls
        self.open_connections = 0
        self.connections_changed = threading.Condition()
        super().__init__((LOOPBACK, port), Handler)

    def process_request(self, request, client_address):
        # Counted in the accept loop, before the connection's thread starts, so that a
        # quiesce request sees every connection accepted before it.
        with self.connections_changed:
            self.open_connections += 1
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self.connections_changed:
                self.open_connections -= 1
                self.connections_changed.notify_all()

    def wait_until_alone(self):
        """Returns when the calling connection is the only one open."""
        with self.connections_changed:
            self.connections_changed.wait_for(lambda: self.open_connections <= 1)

    def finish_request(self, request, client_address):
        # The TLS handshake runs here, in the connection's own thread, so a client that
        # refuses the certificate (or never speaks) cannot hold up the accept loop.
        if self.tls is None:
            return super().finish_request(request, client_address)
        try:
            request = self.tls.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError) as error:
            sys.stderr.write("%s tls handshake failed: %s\n" % (client_address[0], error))
            return
        try:
            super().finish_request(request, client_address)
        finally:
            request.close()


class Config:
    def __init__(self, args):
        self.root = os.path.abspath(args.root)
        self.user = args.user
        self.password = args.password
        self.negotiate = args.negotiate
        self.negotiate_only = args.negotiate_only
        self.busy = Busy(args.busy_file)
        exec_path = subprocess.run(["git", "--exec-path"], stdout=subprocess.PIPE, check=True).stdout
        self.backend = os.path.join(exec_path.decode().strip(), "git-http-backend")


def main():
    args = parse_args()
    if args.silent:
        return run_silent(args.port)
    tls = None
    if args.cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
    server = Server(args.port, Config(args), tls)
    announce(server.server_address[1])
    server.serve_forever()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
