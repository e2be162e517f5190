#!/usr/bin/env python3
"""One CalDAV request script run against Radicale and against `todo-serve`: where the two
answer differently, and whether each difference is one the RFCs allow.

    python3 scripts/caldav/compare.py --todo .build/debug/todo --serve .build/debug/todo-serve
        [--venv DIR] [--expected scripts/caldav/compare-expected.txt] [--verbose] [--keep]

Radicale (from the venv of `scripts/deps.sh --test`, default `$XDG_CACHE_HOME or
~/.cache` + `/todo/caldav-venv`) runs on loopback with a storage folder of its own, no
authentication (the Basic user name is the principal), and one collection made with MKCALENDAR
for VTODO only, holding two tasks. `todo-serve` runs on loopback in a household of two members
(Ann and Bob: a chore with a rotation, a checklist, a task for each), signed in with an app
password of Ann's; the collection is Ann's Mine.

The steps, the same requests in the same order on both (raw HTTP/1.1, one keep-alive
connection, Basic authentication): OPTIONS; PROPFIND depth 0 on the root, the principal (also
the calendar home on both) and the collection with the properties DAVx5 asks for; PROPFIND
depth 1 on the collection; PUT of a new VTODO with If-None-Match: * (201), the same again
(412); GET; PUT with If-Match naming a version that does not exist (412); REPORT
calendar-query as python-caldav's `todos()` sends it; calendar-multiget of the new item;
sync-collection with no token, after one change, with a token the server never gave; DELETE
(204), DELETE again (404); PROPFIND of a missing item (404); MKCALENDAR.

Each step is compared by its status and its shape: for a multistatus, the set of (href kind:
collection or item, propstat or response status, property name) and whether it carries a
sync-token; for other answers, the precondition elements of a DAV:error body and the headers
that matter to the step (ETag on GET and PUT, calendar-access in DAV on OPTIONS). Values and
the exact hrefs are not compared. Prints a markdown table: step | Radicale | todo-serve | same?.

--expected names the differences that are allowed, one a line, `step: reason (RFC …)`, or
`step STATUS: reason` for a difference allowed only while todo-serve answers STATUS; lines
starting with # are comments. Exit 0 when every difference is listed, 1 when one is not (it is
printed with both requests' answers), 2 when a server could not be started.
"""

import argparse
import base64
import http.client
import json
import os
import re
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Failed, Household, Radicale, TodoServe, default_venv  # noqa: E402
from serve_client import member_key  # noqa: E402

DAV = "DAV:"
CALDAV = "urn:ietf:params:xml:ns:caldav"
CS = "http://calendarserver.org/ns/"


def say(message):
    print(f"compare: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# HTTP


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        return self.headers.get(name.lower())


class Client:
    """One keep-alive HTTP/1.1 connection with Basic credentials; reconnects when the server
    closed it."""

    def __init__(self, port, user, password, source=None):
        self.port, self.source = port, source
        self.auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.conn = None

    def request(self, method, path, body=None, headers=None):
        data = body.encode() if isinstance(body, str) else body
        h = {"Authorization": self.auth, "User-Agent": "compare.py"}
        if data is not None:
            h.setdefault("Content-Type", "application/xml; charset=utf-8")
        h.update(headers or {})
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120,
                                                       source_address=(self.source, 0) if self.source else None)
            try:
                self.conn.request(method, path, body=data, headers=h)
                r = self.conn.getresponse()
                payload = r.read()
                headers = {k.lower(): v for k, v in r.getheaders()}
                if headers.get("connection", "").lower() == "close":
                    self.close()
                return Answer(r.status, headers, payload)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close()
                if attempt:
                    raise

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# ---------------------------------------------------------------------------------------------
# Request bodies

PROPFIND_DISCOVERY = """<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/">
  <d:prop>
    <d:current-user-principal/><c:calendar-home-set/><d:resourcetype/><d:displayname/>
    <c:supported-calendar-component-set/><d:current-user-privilege-set/><cs:getctag/><d:sync-token/>
  </d:prop>
</d:propfind>"""

PROPFIND_MEMBERS = """<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:getcontenttype/></d:prop></d:propfind>"""

# What python-caldav 3.6's Calendar.todos() sends first (caldav/search.py, "ignore_completed1").
CALENDAR_QUERY = """<?xml version='1.0' encoding='utf-8'?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-data/><D:getetag/><C:schedule-tag/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"><C:prop-filter name="COMPLETED"><C:is-not-defined/></C:prop-filter><C:prop-filter name="STATUS"><C:text-match collation="i;octet" negate-condition="yes">COMPLETED</C:text-match></C:prop-filter><C:prop-filter name="STATUS"><C:text-match collation="i;octet" negate-condition="yes">CANCELLED</C:text-match></C:prop-filter></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"""

MULTIGET = """<?xml version="1.0" encoding="utf-8"?>
<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
  <d:prop><d:getetag/><c:calendar-data/></d:prop>
  <d:href>{href}</d:href>
</c:calendar-multiget>"""

SYNC = """<?xml version="1.0" encoding="utf-8"?>
<d:sync-collection xmlns:d="DAV:"><d:sync-token>{token}</d:sync-token><d:sync-level>1</d:sync-level>
<d:prop><d:getetag/></d:prop></d:sync-collection>"""

MKCALENDAR = """<?xml version="1.0" encoding="utf-8"?>
<c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop>
<d:displayname>New list</d:displayname>
<c:supported-calendar-component-set><c:comp name="VTODO"/></c:supported-calendar-component-set>
</d:prop></d:set></c:mkcalendar>"""


def vtodo(uid, summary, status="NEEDS-ACTION"):
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//todo//compare//EN\r\nBEGIN:VTODO\r\n"
            f"UID:{uid}\r\nDTSTAMP:20261126T120000Z\r\nSUMMARY:{summary}\r\nSTATUS:{status}\r\n"
            "DUE;VALUE=DATE:20261201\r\nEND:VTODO\r\nEND:VCALENDAR\r\n")


ICS = {"Content-Type": "text/calendar; charset=utf-8"}


# ---------------------------------------------------------------------------------------------
# Shapes


def tag(name):
    """{ns}local as a short name: d:x, c:x, cs:x, or the full form for anything else."""
    if name.startswith("{"):
        ns, local = name[1:].split("}", 1)
        prefix = {DAV: "d", CALDAV: "c", CS: "cs"}.get(ns)
        return f"{prefix}:{local}" if prefix else name
    return name


def status_code(text):
    m = re.search(r"\b(\d{3})\b", text or "")
    return m.group(1) if m else "?"


def parse_xml(body):
    try:
        return ET.fromstring(body)
    except ET.ParseError:
        return None


def shape(answer, step):
    """A comparable description of an answer, values and exact hrefs left out."""
    out = set()
    root = parse_xml(answer.body) if answer.body else None
    if answer.status == 207 and root is not None and root.tag == f"{{{DAV}}}multistatus":
        for response in root.findall(f"{{{DAV}}}response"):
            hrefs = [h.text or "" for h in response.findall(f"{{{DAV}}}href")]
            kind = "collection" if hrefs and hrefs[0].rstrip().endswith("/") else "item"
            top = response.find(f"{{{DAV}}}status")
            if top is not None:
                out.add((kind, status_code(top.text), "-"))
            for ps in response.findall(f"{{{DAV}}}propstat"):
                code = status_code((ps.find(f"{{{DAV}}}status").text if ps.find(f"{{{DAV}}}status") is not None else ""))
                prop = ps.find(f"{{{DAV}}}prop")
                for p in (list(prop) if prop is not None else []):
                    out.add((kind, code, tag(p.tag)))
        if root.find(f"{{{DAV}}}sync-token") is not None:
            out.add(("multistatus", "-", "d:sync-token"))
        if not root.findall(f"{{{DAV}}}response"):
            out.add(("multistatus", "-", "(no response)"))
    elif root is not None and root.tag == f"{{{DAV}}}error":
        for child in root:
            out.add(("error", "-", tag(child.tag)))
    if step == "options":
        dav = [t.strip() for t in (answer.header("dav") or "").split(",")]
        out.add(("header", "-", "DAV: calendar-access" if "calendar-access" in dav else "DAV: no calendar-access"))
    if step.startswith("put") or step == "get":
        out.add(("header", "-", "ETag" if answer.header("etag") else "no ETag"))
    if step == "get":
        ct = (answer.header("content-type") or "").split(";")[0].strip().lower()
        out.add(("header", "-", f"Content-Type: {ct}"))
    return frozenset(out)


def describe(s):
    return "; ".join(f"{k} {c} {p}" if c != "-" else f"{k} {p}" for k, c, p in sorted(s)) or "(empty)"


# ---------------------------------------------------------------------------------------------
# The request script


def sync_token(answer):
    root = parse_xml(answer.body)
    node = root.find(f"{{{DAV}}}sync-token") if root is not None else None
    return node.text.strip() if node is not None and node.text else ""


def script(client, paths, uid):
    """Run every step; a list of (step, request line, Answer)."""
    root_path, principal, collection = paths
    item = collection + uid + ".ics"
    missing = collection + "no-such-item-0000.ics"
    steps = []

    def do(step, method, path, body=None, headers=None):
        a = client.request(method, path, body, headers)
        steps.append((step, f"{method} {path} {json.dumps(headers or {})}", a, body))
        return a

    do("options", "OPTIONS", collection)
    do("propfind-root", "PROPFIND", root_path, PROPFIND_DISCOVERY, {"Depth": "0"})
    do("propfind-principal", "PROPFIND", principal, PROPFIND_DISCOVERY, {"Depth": "0"})
    do("propfind-collection", "PROPFIND", collection, PROPFIND_DISCOVERY, {"Depth": "0"})
    do("propfind-collection-depth1", "PROPFIND", collection, PROPFIND_MEMBERS, {"Depth": "1"})
    first = do("sync-initial", "REPORT", collection, SYNC.format(token=""), {"Depth": "1"})
    token = sync_token(first)
    do("put-new", "PUT", item, vtodo(uid, "From a phone"), dict(ICS, **{"If-None-Match": "*"}))
    do("put-new-again", "PUT", item, vtodo(uid, "From a phone"), dict(ICS, **{"If-None-Match": "*"}))
    got = do("get", "GET", item)
    do("put-if-match-unknown", "PUT", item, vtodo(uid, "From a phone\\, edited"),
       dict(ICS, **{"If-Match": '"0000000000000000000000000000000000000000.00000000"'}))
    do("put-if-match", "PUT", item, vtodo(uid, "From a phone\\, edited"),
       dict(ICS, **{"If-Match": got.header("etag") or '"none"'}))
    do("sync-after-change", "REPORT", collection, SYNC.format(token=token), {"Depth": "1"})
    do("report-query", "REPORT", collection, CALENDAR_QUERY, {"Depth": "1"})
    do("report-multiget", "REPORT", collection, MULTIGET.format(href=item), {"Depth": "1"})
    do("sync-invalid-token", "REPORT", collection,
       SYNC.format(token="http://todo.invalid/sync/not-a-token-this-server-gave"), {"Depth": "1"})
    do("delete", "DELETE", item)
    do("delete-again", "DELETE", item)
    do("propfind-missing", "PROPFIND", missing, PROPFIND_MEMBERS, {"Depth": "0"})
    do("mkcalendar", "MKCALENDAR", principal + "new-list/", MKCALENDAR)
    return steps


# ---------------------------------------------------------------------------------------------


def read_expected(path):
    """{step: (todo-serve's status or None, reason)} from the --expected file. A line is
    `step: reason`, or `step STATUS: reason` when the difference is allowed only while
    todo-serve answers STATUS."""
    allowed = {}
    if not path:
        return allowed
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            head, _, reason = line.partition(":")
            words = head.split()
            status = int(words[1]) if len(words) > 1 and words[1].isdigit() else None
            allowed[words[0]] = (status, reason.strip())
    return allowed


def setup_radicale(venv, tmp):
    server = Radicale(venv, os.path.join(tmp, "radicale"), os.path.join(tmp, "radicale.log"))
    client = Client(server.port, "ann", "x")
    collection = "/ann/tasks/"
    a = client.request("MKCALENDAR", collection, MKCALENDAR)
    if a.status != 201:
        raise Failed(f"Radicale answered MKCALENDAR {collection} with {a.status}: {a.body[:300]!r}")
    for n, summary in enumerate(["Call the plumber", "Fix the bike"]):
        a = client.request("PUT", f"{collection}seed-{n}.ics", vtodo(f"seed-{n}", summary), ICS)
        if a.status != 201:
            raise Failed(f"Radicale answered a PUT with {a.status}")
    return server, client, ("/", "/ann/", collection)


def setup_todo_serve(todo_bin, serve, tmp):
    """common.Household's household (Ann and Bob, a chore, a checklist, a task each), served."""
    household = Household(todo_bin, root=os.path.join(tmp, "todo"))
    server = TodoServe(serve, household)
    creds = household.app_password(server.port)
    client = Client(server.port, creds["user"], creds["password"])
    key = member_key("Ann")
    return server, client, ("/dav/", f"/dav/{key}/", f"/dav/{key}/mine/")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root_dir = os.path.dirname(os.path.dirname(here))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--todo", default=os.path.join(root_dir, ".build/debug/todo"))
    parser.add_argument("--serve", default=os.path.join(root_dir, ".build/debug/todo-serve"))
    parser.add_argument("--venv", default=default_venv(), help="the venv holding radicale")
    parser.add_argument("--expected", help="accepted differences, `step: reason (RFC …)` a line")
    parser.add_argument("--verbose", action="store_true", help="print every answer's shape and body")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    todo_bin, serve = os.path.abspath(args.todo), os.path.abspath(args.serve)
    python = os.path.join(args.venv, "bin", "python")
    for binary in (todo_bin, serve, python):
        if not os.access(binary, os.X_OK):
            say(f"no executable at {binary} (build it, or `scripts/deps.sh --test` for the venv)")
            return 2
    allowed = read_expected(args.expected)

    tmp = tempfile.mkdtemp(prefix="todo-caldav-compare.")
    rad = ts = None
    try:
        try:
            rad, rclient, rpaths = setup_radicale(args.venv, tmp)
            ts, tclient, tpaths = setup_todo_serve(todo_bin, serve, tmp)
        except Failed as e:
            say(str(e))
            return 2
        uid = "compare-0b8e1c5d-2f4a-4a57-9a4e-3c1d8f2e6b70"
        left = script(rclient, rpaths, uid)
        right = script(tclient, tpaths, uid)
        rclient.close()
        tclient.close()
    finally:
        for server in (rad, ts):
            if server:
                server.stop()
        if args.keep:
            say(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    print("| step | Radicale | todo-serve | same? |")
    print("|---|---|---|---|")
    unlisted = []
    for (step, req, ra, body), (_, treq, ta, _) in zip(left, right):
        rs, tshape = shape(ra, step), shape(ta, step)
        same = ra.status == ta.status and rs == tshape
        if same:
            verdict = "yes"
        elif step in allowed and allowed[step][0] in (None, ta.status):
            verdict = f"no, allowed: {allowed[step][1]}"
        else:
            verdict = "**no**"
            unlisted.append((step, req, treq, body, ra, ta, rs, tshape))
        diff = ""
        if ra.status == ta.status and rs != tshape:
            only_r, only_t = rs - tshape, tshape - rs
            diff = (" (shape: only Radicale: " + (describe(only_r) or "-") +
                    "; only todo-serve: " + (describe(only_t) or "-") + ")")
        print(f"| {step} | {ra.status} | {ta.status}{diff} | {verdict} |")
        if args.verbose:
            print(f"\n<!-- {step}\nRadicale: {describe(rs)}\n{ra.body.decode(errors='replace')[:3000]}\n"
                  f"todo-serve: {describe(tshape)}\n{ta.body.decode(errors='replace')[:3000]}\n-->\n")
    stale = sorted(set(allowed) - {s for s, *_ in left if s})
    for step, req, treq, body, ra, ta, rs, tshape in unlisted:
        print(f"\n### {step}: an unlisted difference\n")
        print(f"Request (Radicale): `{req}`  \nRequest (todo-serve): `{treq}`")
        if body:
            print("\n```\n" + (body if isinstance(body, str) else body.decode(errors="replace"))[:2000] + "\n```")
        for name, a, s in (("Radicale", ra, rs), ("todo-serve", ta, tshape)):
            print(f"\n{name}: {a.status}, shape: {describe(s)}\n\n```\n"
                  f"{a.body.decode(errors='replace')[:3000]}\n```")
    if stale:
        say("listed as expected but not a step: " + ", ".join(stale))
    if unlisted:
        say(f"{len(unlisted)} difference(s) not in {args.expected or '--expected'}: " +
            ", ".join(u[0] for u in unlisted))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
