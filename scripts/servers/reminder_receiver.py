#!/usr/bin/env python3
"""A receiver of reminders for the tests, on 127.0.0.1 only.

    reminder_receiver.py smtp --out FILE [--fail N] [--refuse-sender ADDR]
                              [--tls-cert CERT --tls-key KEY [--implicit-tls]] [--login USER:PASSWORD]
    reminder_receiver.py http --out FILE [--fail N] [--status CODE] [--tls-cert CERT --tls-key KEY]
    reminder_receiver.py stall --out FILE

smtp is aiosmtpd's SMTP server (PyPI aiosmtpd, or Debian's python3-aiosmtpd; `sh scripts/deps.sh
--test` installs it). Every message it is given is appended to FILE as one JSON line: the
envelope's sender and recipients, the headers that matter, the body, and whether it was taken
("accepted") or answered 451 (the first N, with --fail) or 550 (a sender named with
--refuse-sender). With --tls-cert it offers STARTTLS and requires it before MAIL (with --implicit-tls it
speaks TLS from the first byte instead, as on port 465); with --login
it requires that login (AUTH PLAIN or LOGIN, only after STARTTLS). With --hold N the first N
messages are recorded, "held N" printed, and never answered. It prints "accepted" (or
"deferred") after answering each message. http answers each POST with 200, or with --status CODE (default 503) for the
first N; FILE gets the path, the headers and the body of each. Prints "listening on 127.0.0.1
port PORT" once it can be reached. stall accepts connections and never answers (a server that
hangs); FILE gets one line per connection, and it prints "connection N" for each. Exits 3 when aiosmtpd is missing.
"""
import argparse
import email
import email.policy
import json
import sys
import threading


def record(path, entry):
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")
        f.flush()


def smtp(args):
    try:
        import asyncio
        from aiosmtpd.smtp import SMTP
    except ImportError:
        print("aiosmtpd is missing", file=sys.stderr)
        sys.exit(3)
    failures = [args.fail]
    held = [0]
    from aiosmtpd.smtp import AuthResult

    def authenticator(server, session, envelope, mechanism, auth_data):
        user, password = args.login.split(":", 1)
        ok = auth_data.login.decode() == user and auth_data.password.decode() == password
        return AuthResult(success=ok)

    class Handler:
        async def handle_MAIL(self, server, session, envelope, address, options):
            if args.refuse_sender and address == args.refuse_sender:
                return "550 5.7.1 sender refused"
            envelope.mail_from = address
            envelope.mail_options.extend(options)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            message = email.message_from_bytes(envelope.content, policy=email.policy.default)
            taken = failures[0] <= 0
            failures[0] -= 1
            body = message.get_content() if not message.is_multipart() else ""
            record(args.out, {
                "from": envelope.mail_from, "to": envelope.rcpt_tos,
                "header_from": str(message["From"]), "header_to": str(message["To"]),
                "subject": str(message["Subject"]), "message_id": str(message["Message-ID"]),
                "content_type": str(message["Content-Type"]), "date": str(message["Date"]),
                "body": body, "accepted": taken, "held": held[0] < args.hold,
            })
            if held[0] < args.hold:
                # Taken, never answered: the sender dies before it hears back.
                held[0] += 1
                print(f"held {held[0]}", flush=True)
                await asyncio.Event().wait()
            print("accepted" if taken else "deferred", flush=True)
            return "250 OK" if taken else "451 4.3.0 try again later"

    async def main():
        loop = asyncio.get_running_loop()
        options = {"enable_SMTPUTF8": True}
        implicit = None
        if args.tls_cert:
            import ssl
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(args.tls_cert, args.tls_key)
            if args.implicit_tls:
                implicit = context
            else:
                options.update(tls_context=context, require_starttls=True)
        if args.login:
            options.update(authenticator=authenticator, auth_required=True, auth_require_tls=not args.implicit_tls)
        server = await loop.create_server(lambda: SMTP(Handler(), **options), "127.0.0.1", args.port, ssl=implicit)
        port = server.sockets[0].getsockname()[1]
        print(f"listening on 127.0.0.1 port {port}", flush=True)
        await server.serve_forever()

    asyncio.run(main())


def http(args):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    failures = [args.fail]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode("utf-8", "replace")
            with lock:
                taken = failures[0] <= 0
                failures[0] -= 1
                record(args.out, {
                    "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body, "accepted": taken,
                })
            self.send_response(200 if taken else args.status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *a):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    if args.tls_cert:
        import ssl
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"listening on 127.0.0.1 port {server.server_address[1]}", flush=True)
    server.serve_forever()


def stall(args):
    import socket
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", args.port))
    server.listen(16)
    print(f"listening on 127.0.0.1 port {server.getsockname()[1]}", flush=True)
    held = []
    while True:
        conn, _ = server.accept()
        held.append(conn)
        record(args.out, {"connection": len(held)})
        print(f"connection {len(held)}", flush=True)


parser = argparse.ArgumentParser()
parser.add_argument("kind", choices=["smtp", "http", "stall"])
parser.add_argument("--out", required=True)
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--fail", type=int, default=0)
parser.add_argument("--status", type=int, default=503)
parser.add_argument("--refuse-sender")
parser.add_argument("--tls-cert")
parser.add_argument("--tls-key")
parser.add_argument("--login")
parser.add_argument("--implicit-tls", action="store_true")
parser.add_argument("--hold", type=int, default=0)
args = parser.parse_args()
{"smtp": smtp, "http": http, "stall": stall}[args.kind](args)
