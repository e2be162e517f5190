#!/usr/bin/env python3
"""A receiver built from ntfy's documented publish API (https://docs.ntfy.sh/publish/), for the
tests, on 127.0.0.1 only.

    ntfy_receiver.py --out FILE [--port PORT] [--hold N]

POST or PUT /TOPIC publishes the body as the message. The headers read are ntfy's: Title (X-Title,
t), Priority, Tags, Click (X-Click), Actions (X-Actions) in ntfy's short form (`ACTION, LABEL,
URL[, key=value...]`, actions separated by `;`, at most 3, ACTION one of view, http, broadcast;
http takes method=, headers.NAME=, body=, clear=) or as a JSON array, Authorization. A valid
message is answered 200 with ntfy's JSON message (id, time, event, topic, title, message, click,
actions with their defaults: an http action's method is POST); an invalid one 400 with ntfy's
JSON error ({"code": 40018, "http": 400, "error": "invalid request: actions invalid"}); a topic
that is not [-_A-Za-z0-9]{1,64}: 404. FILE gets one JSON line per request: the path, the
headers, the body, the parsed message or the error.

--hold N: the first N valid messages are recorded, then "held N" is printed and the answer is
never sent (the connection stays open until the client goes): a receiver that took a message
whose sender dies before it hears back. Prints "listening on 127.0.0.1 port PORT" once ready, and
"published ID" after answering each message.
"""
import argparse
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOPIC = re.compile(r"^/([-_A-Za-z0-9]{1,64})$")


def record(path, entry):
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")
        f.flush()


class Invalid(Exception):
    pass


def split_simple(text, sep):
    """Splits on `sep` outside double or single quotes (ntfy's short form allows quoting)."""
    parts, current, quote = [], "", None
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
            else:
                current += ch
        elif ch in "\"'":
            quote = ch
        elif ch == sep:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return parts


def parse_actions(value):
    value = value.strip()
    if not value:
        return []
    if value.startswith("["):
        raw = json.loads(value)
    else:
        raw = []
        for definition in split_simple(value, ";"):
            fields = [f.strip() for f in split_simple(definition, ",")]
            if len(fields) < 2:
                raise Invalid("action needs ACTION and LABEL")
            action = {"action": fields[0], "label": fields[1]}
            rest = fields[2:]
            if rest and "=" not in rest[0]:
                action["url"] = rest[0]
                rest = rest[1:]
            for kv in rest:
                if "=" not in kv:
                    raise Invalid("malformed key=value")
                k, v = kv.split("=", 1)
                if k.startswith("headers."):
                    action.setdefault("headers", {})[k[len("headers."):]] = v
                else:
                    action[k] = v
            raw.append(action)
    if len(raw) > 3:
        raise Invalid("too many actions")
    actions = []
    for i, a in enumerate(raw):
        kind = a.get("action")
        if kind not in ("view", "http", "broadcast"):
            raise Invalid("unknown action")
        if not a.get("label"):
            raise Invalid("no label")
        if kind in ("view", "http") and not a.get("url"):
            raise Invalid("no url")
        out = {"id": f"a{i}", "action": kind, "label": a["label"], "clear": str(a.get("clear", "false")).lower() == "true"}
        if kind in ("view", "http"):
            out["url"] = a["url"]
        if kind == "http":
            out["method"] = a.get("method", "POST").upper()
            out["headers"] = a.get("headers", {})
            out["body"] = a.get("body", "")
        actions.append(out)
    return actions


def header(headers, *names):
    for n in names:
        v = headers.get(n)
        if v is not None:
            return v
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--hold", type=int, default=0)
    args = parser.parse_args()
    lock = threading.Lock()
    held = [0]
    count = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def publish(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode("utf-8", "replace")
            headers = {k.lower(): v for k, v in self.headers.items()}
            entry = {"path": self.path, "headers": headers, "body": body}
            m = TOPIC.match(self.path.split("?", 1)[0])
            if not m:
                return self.answer(404, {"code": 40401, "http": 404, "error": "page not found"}, entry)
            try:
                actions = parse_actions(header(headers, "x-actions", "actions", "action") or "")
            except (Invalid, ValueError) as e:
                entry["invalid"] = str(e)
                return self.answer(400, {"code": 40018, "http": 400, "error": "invalid request: actions invalid"}, entry)
            with lock:
                count[0] += 1
                message = {
                    "id": f"m{count[0]}", "time": int(time.time()), "event": "message", "topic": m.group(1),
                    "message": body, "title": header(headers, "x-title", "title", "t") or "",
                    "click": header(headers, "x-click", "click") or "", "actions": actions,
                }
                entry["message"] = message
                hold = held[0] < args.hold
                if hold:
                    held[0] += 1
                    entry["held"] = True
                record(args.out, entry)
            if hold:
                print(f"held {held[0]}", flush=True)
                # Never answered: wait until the client closes the connection.
                while self.rfile.read(1):
                    pass
                self.close_connection = True
                return
            self.answer(200, message, None)
            print(f"published {message['id']}", flush=True)

        def answer(self, status, doc, entry):
            if entry is not None:
                entry["status"] = status
                with lock:
                    record(args.out, entry)
            data = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_POST = publish
        do_PUT = publish

        def log_message(self, *a):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"listening on 127.0.0.1 port {server.server_address[1]}", flush=True)
    server.serve_forever()


main()
