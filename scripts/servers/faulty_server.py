#!/usr/bin/env python3
"""A loopback git server that breaks the connection after its ref advertisement, for the tests
of what a client does when the network fails in the middle of an exchange.

  --protocol git    git:// (git daemon's protocol): reads the client's request line, sends an
                    upload-pack advertisement of one branch, `main`, at an object nobody has.
  --protocol http   smart HTTP: answers GET .../info/refs with the same advertisement; every
                    POST (the negotiation that follows) meets the fault.

  --fault reset     after the advertisement, as soon as the client sends anything more, the
                    connection is reset (TCP RST): the client's next read or write fails.
  --fault stall     after the advertisement the server reads what the client sends and never
                    answers; only the client's own deadline ends the exchange.

For each fault it meets, the server prints "fault: reset" or "fault: stall" on stdout.

It binds 127.0.0.1 only, on --port (0: a free port the kernel picks), and once it listens
prints "listening on 127.0.0.1 port N" on stdout: that line is how the tests know it is ready.
It stops by itself after --lifetime seconds (default 300), whatever happens to the test that
started it. Standard library only.
"""

import argparse
import os
import signal
import socket
import struct
import sys
import threading

LOOPBACK = "127.0.0.1"
# An object id that exists nowhere, so that a client always wants it.
MISSING = "5ca1ab1e" * 5
CAPABILITIES = "multi_ack_detailed side-band-64k ofs-delta thin-pack no-progress symref=HEAD:refs/heads/main agent=faulty/1"


def pkt(text):
    data = text.encode()
    return b"%04x" % (len(data) + 4) + data


def advertisement():
    return pkt("%s HEAD\0%s\n" % (MISSING, CAPABILITIES)) + pkt("%s refs/heads/main\n" % MISSING) + b"0000"


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def reset(conn):
    """Closes with a TCP reset instead of an orderly shutdown."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def read_some(conn):
    try:
        return conn.recv(65536)
    except OSError:
        return b""


def fault(conn, kind, held):
    if kind == "reset":
        # Wait for the client's next bytes: then it is committed to this connection.
        read_some(conn)
        say("fault: reset")
        reset(conn)
    else:
        say("fault: stall")
        held.append(conn)
        # Read (so the client's writes never block) and never answer, until the client gives up.
        while read_some(conn):
            pass


def serve_git(conn, kind, held):
    # The request: a pkt-line "git-upload-pack /path\0host=...\0".
    if not read_some(conn):
        conn.close()
        return
    conn.sendall(advertisement())
    fault(conn, kind, held)


def read_request(conn, pending):
    """One HTTP request head from `conn` (bytes already read come in `pending`): its first line
    and the bytes after the head; None when the client closed."""
    while b"\r\n\r\n" not in pending:
        more = read_some(conn)
        if not more:
            return None
        pending += more
    head, rest = pending.split(b"\r\n\r\n", 1)
    return head.split(b"\r\n", 1)[0].decode("latin-1"), rest


def serve_http(conn, kind, held):
    pending = b""
    while True:
        request = read_request(conn, pending)
        if request is None:
            conn.close()
            return
        line, pending = request
        method = line.split(" ", 1)[0]
        if method == "GET" and "info/refs" in line:
            body = pkt("# service=git-upload-pack\n") + b"0000" + advertisement()
            conn.sendall(
                b"HTTP/1.1 200 OK\r\n"
                b"Content-Type: application/x-git-upload-pack-advertisement\r\n"
                b"Cache-Control: no-cache\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body) + body
            )
            continue
        if method == "POST":
            say("fault: %s" % kind)
            if kind == "reset":
                reset(conn)
            else:
                held.append(conn)
                while read_some(conn):
                    pass
            return
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--protocol", choices=["git", "http"], required=True)
    p.add_argument("--fault", choices=["reset", "stall"], required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--lifetime", type=int, default=300)
    args = p.parse_args()
    signal.signal(signal.SIGALRM, lambda *_: os._exit(0))
    signal.alarm(args.lifetime)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((LOOPBACK, args.port))
    listener.listen(16)
    say("listening on %s port %d" % (LOOPBACK, listener.getsockname()[1]))
    serve = serve_git if args.protocol == "git" else serve_http
    held = []
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, args.fault, held), daemon=True).start()


if __name__ == "__main__":
    main()
