#!/usr/bin/env python3
"""`todo-serve`'s CalDAV beside Radicale, in the same run: a phone's reads and writes on a
household of 10,000 tasks, p50 and p99 in milliseconds.

    python3 scripts/bench/caldav.py [--todo BIN] [--serve BIN] [--venv DIR] [--tasks 10000]
        [--runs 20] [--json FILE] [--keep] [--hostile-only | --todo-serve-only]

--todo and --serve default to $TODO_BIN and $TODO_SERVE_BIN (as scripts/bench.sh sets them),
else the release build; --venv is the venv of `scripts/deps.sh --test` holding Radicale
(default `$XDG_CACHE_HOME or ~/.cache` + `/todo/caldav-venv`).

The household, made with one `todo import` (scripts/bench/common.py's generator): --tasks tasks
of which a tenth are chores (every day, from 2026-01-01, -02 or -03, a rotation of Alice with one or two
others), 10 are checklists of 2 to 12 items, and the rest plain tasks; 3% of the plain tasks
are assigned to Alice, the rest to the other three members or to nobody, so that Alice's Mine
holds what a member's would. `todo-serve --sync-every 0` on loopback, signed in with an app
password of Alice's; the collection is her Mine.

Radicale: the same number of VTODO items (the same titles, due dates and statuses) in one
collection made with MKCALENDAR, default configuration (fsync on), no authentication. Its
storage is the `multifilesystem` folder (one .ics file per item in
collection-root/<user>/<collection>/), so the items are written there as files, not PUT one by
one (a PUT costs Radicale a lock and an fsync); one untimed PROPFIND then lets Radicale build
its item cache.

Then, for each server, --runs runs of each operation (after one untimed), on one keep-alive
connection with Basic credentials:
  propfind    PROPFIND depth 1 on the collection (getetag, getcontenttype)
  query       REPORT calendar-query as python-caldav's todos() sends it (open VTODOs, with
              calendar-data)
  sync        REPORT sync-collection with the token of the run before, after one change (a PUT
              that renames one task, untimed)
  put         a PUT completing one item: on todo-serve the current occurrence of one of Alice's
              chores (GET, STATUS:COMPLETED, If-Match), each run another chore; on Radicale the
              same change to one item
Targets (issue #29): sync with one change at most 20 ms p50 on todo-serve, every read ahead of
Radicale, the PUT within 2 times Radicale's.

Then what one device may make todo-serve spend (docs/CALDAV.md, "Limits"): a todo-serve started
fresh on the same household answers Alice's ordinary requests (PROPFIND and calendar-query of
Mine, every Household item's data, a sync from the start), and its peak memory (VmHWM in
/proc) is read; then the hostile requests, from Alice's app password on one loopback address:
PROPFIND depth 1 of Household naming getetag 1,000 times, a calendar-query naming calendar-data
5,000 times, 65 different properties, 64 properties with 15,000-character names, a
calendar-multiget naming one item in every href of a 1 MB body, a sync-collection with a token
of day 9999-12-31; one at a time, then 16 at once; the peak memory again (target ≤ 256 MB).
Last, Bob's PROPFIND depth 0 of his Mine, --runs times alone and twice that while 16 threads of
Alice's device keep those requests in flight (target p50 ≤ 50 ms). --hostile-only runs only
this part; --todo-serve-only runs only todo-serve's timed operations (no Radicale, no hostile
requests), to alternate this build with an earlier one in the same run.

Prints a markdown table; --json writes the figures. Standard library only (Radicale runs from
the venv). Exit 1 when a request failed.
"""

import argparse
import base64
import http.client
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import generate_tasks, percentile  # noqa: E402

DAV = "DAV:"
LISTENING = re.compile(r"todo-serve: listening on http://127\.0\.0\.1:(\d+)/")
MEMBERS = ["Alice", "Bob", "Carol", "Dan"]
REQUESTS_PER_ADDRESS = 500  # todo-serve's CalDAV budget is 1,200 requests a minute per peer


class Failed(Exception):
    pass


def log(message):
    print(f"bench-caldav: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Servers


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_radicale(python, folder, log_file):
    """Radicale on 127.0.0.1, storage under folder, no authentication: (proc, port)."""
    port = _free_port()
    cmd = [python, "-m", "radicale", "--storage-filesystem-folder", folder, "--auth-type", "none",
           "--hosts", f"127.0.0.1:{port}", "--logging-level", "warning"]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise Failed(f"Radicale exited {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc, port
        except OSError:
            if time.monotonic() > deadline:
                _stop(proc)
                raise Failed("Radicale did not listen within 60 s")
            time.sleep(0.1)


def _start_todo_serve(serve, env, log_file, timeout=300):
    """`todo-serve --listen 127.0.0.1:0 --sync-every 0`: (proc, port) once it printed that it
    listens (standard output); the rest of its output goes to log_file through `cat`."""
    proc = subprocess.Popen([serve, "--listen", "127.0.0.1:0", "--sync-every", "0"], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log_file,
                            start_new_session=True)
    deadline = time.monotonic() + timeout
    seen = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            _stop(proc)
            raise Failed(f"todo-serve printed no `listening on` line within {timeout} s")
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if not ready:
            continue
        chunk = os.read(proc.stdout.fileno(), 4096)
        if not chunk:
            raise Failed(f"todo-serve exited {proc.wait(timeout=10)} before listening")
        seen += chunk
        m = LISTENING.search(seen.decode(errors="replace"))
        if m:
            break
    log_file.write(seen)
    log_file.flush()
    proc.drain = subprocess.Popen(["cat"], stdin=proc.stdout, stdout=log_file, stderr=subprocess.DEVNULL)
    proc.stdout.close()
    return proc, int(m.group(1))


def _stop(proc, grace=15):
    if proc is None:
        return None
    if proc.poll() is None:
        try:
            os.kill(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    try:
        code = proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        code = proc.wait(timeout=10)
    if getattr(proc, "drain", None) is not None:
        proc.drain.wait(timeout=10)
    return code


def member_env(root):
    home = os.path.join(root, "home")
    os.makedirs(home, exist_ok=True)
    gitconfig = os.path.join(root, "gitconfig")
    with open(gitconfig, "w") as f:
        f.write("[user]\n\tname = Alice\n\temail = alice@example.org\n[init]\n\tdefaultBranch = main\n"
                "[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n")
    return {
        "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
        "HOME": home, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "NO_COLOR": "1", "TZ": "UTC",
        "TODO_HOME": os.path.join(root, "todo"), "XDG_STATE_HOME": os.path.join(root, "state"),
        "XDG_CONFIG_HOME": os.path.join(root, "config"), "TODO_MAINTENANCE_THRESHOLD": "off",
        "GIT_CONFIG_GLOBAL": gitconfig, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
    }


def run(cmd, env, timeout=900):
    p = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    if p.returncode != 0:
        raise Failed(f"`{' '.join(cmd)}` exited {p.returncode}: {p.stderr.decode(errors='replace')[:600]}")
    return p.stdout.decode(errors="replace")


def mkey(name):
    h = 0xcbf29ce484222325
    for b in name.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "m%016x" % h


# ---------------------------------------------------------------------------------------------
# HTTP


class Client:
    """Keep-alive HTTP/1.1 with Basic credentials; a new loopback source address every
    REQUESTS_PER_ADDRESS requests (todo-serve's per-peer budget is for one phone)."""

    def __init__(self, port, user, password, block):
        self.port, self.block = port, block
        self.auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
        self.conn = None
        self.count = 0

    def request(self, method, path, body=None, headers=None):
        """(status, headers, body, ms): ms from sending the request to the last byte read."""
        if self.count % REQUESTS_PER_ADDRESS == 0:
            self.close()
        self.count += 1
        if self.conn is None:
            n = self.count // REQUESTS_PER_ADDRESS
            source = f"127.{self.block}.{n // 250}.{1 + n % 250}"
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300,
                                                   source_address=(source, 0))
        h = {"Authorization": self.auth}
        if body is not None:
            h["Content-Type"] = "application/xml; charset=utf-8"
        h.update(headers or {})
        data = body.encode() if isinstance(body, str) else body
        start = time.perf_counter()
        self.conn.request(method, path, body=data, headers=h)
        r = self.conn.getresponse()
        payload = r.read()
        ms = (time.perf_counter() - start) * 1000
        out = {k.lower(): v for k, v in r.getheaders()}
        if out.get("connection", "").lower() == "close":
            self.close()
        return r.status, out, payload, ms

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


PROPFIND = """<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:getcontenttype/></d:prop></d:propfind>"""

# What python-caldav 3.6's Calendar.todos() sends first (caldav/search.py).
QUERY = """<?xml version='1.0' encoding='utf-8'?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-data/><D:getetag/><C:schedule-tag/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO"><C:prop-filter name="COMPLETED"><C:is-not-defined/></C:prop-filter><C:prop-filter name="STATUS"><C:text-match collation="i;octet" negate-condition="yes">COMPLETED</C:text-match></C:prop-filter><C:prop-filter name="STATUS"><C:text-match collation="i;octet" negate-condition="yes">CANCELLED</C:text-match></C:prop-filter></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"""

SYNC = """<?xml version="1.0" encoding="utf-8"?>
<d:sync-collection xmlns:d="DAV:"><d:sync-token>{token}</d:sync-token><d:sync-level>1</d:sync-level>
<d:prop><d:getetag/></d:prop></d:sync-collection>"""

MKCALENDAR = """<?xml version="1.0" encoding="utf-8"?>
<c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop>
<d:displayname>Tasks</d:displayname>
<c:supported-calendar-component-set><c:comp name="VTODO"/></c:supported-calendar-component-set>
</d:prop></d:set></c:mkcalendar>"""

ICS = {"Content-Type": "text/calendar; charset=utf-8"}


def vtodo(task):
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//todo//bench//EN", "BEGIN:VTODO",
             f"UID:{task['id']}", "DTSTAMP:20261126T120000Z", f"SUMMARY:{task['title']}",
             "STATUS:NEEDS-ACTION", f"PRIORITY:{ {'high': 1, 'normal': 5, 'low': 9}.get(task.get('priority'), 0) }"]
    if task.get("due"):
        lines.append("DUE;VALUE=DATE:" + task["due"].replace("-", ""))
    if task.get("tags"):
        lines.append("CATEGORIES:" + ",".join(task["tags"]))
    if "repeat" in task:
        lines.append("RRULE:FREQ=DAILY")
    lines += ["END:VTODO", "END:VCALENDAR", ""]
    return "\r\n".join(lines)


def multistatus_hrefs(body):
    root = ET.fromstring(body)
    return [h.text for r in root.findall(f"{{{DAV}}}response") for h in r.findall(f"{{{DAV}}}href")]


def sync_token(body):
    node = ET.fromstring(body).find(f"{{{DAV}}}sync-token")
    return node.text.strip() if node is not None and node.text else ""


def completed(ics):
    """The iCalendar text with its VTODO's STATUS set to COMPLETED and a COMPLETED stamp."""
    lines = [line for line in ics.replace("\r\n", "\n").split("\n")
             if not line.startswith(("STATUS:", "COMPLETED:", "PERCENT-COMPLETE:"))]
    i = lines.index("END:VTODO")
    lines[i:i] = ["STATUS:COMPLETED", "COMPLETED:20261126T120000Z", "PERCENT-COMPLETE:100"]
    return "\r\n".join(lines)


def renamed(ics, n):
    return re.sub(r"(?m)^SUMMARY:.*$", f"SUMMARY:Renamed in run {n}", ics.replace("\r\n", "\n")).replace("\n", "\r\n")


# ---------------------------------------------------------------------------------------------
# The household and the collection


def household_tasks(count, rng):
    tasks = generate_tasks(count, rng)
    chores = count // 10
    checklists = min(10, max(0, count - chores))
    for n, t in enumerate(tasks):
        t.pop("assignee", None)
        if n < chores:
            t.pop("due", None)
            # Started on one of three days, so that today is Alice's turn of about a third of them
            # (her turns of the others are later, and cannot be done ahead of time).
            t["repeat"] = {"every": "day", "from": f"2026-01-0{rng.randint(1, 3)}"}
            t["rotation"] = ["Alice"] + rng.sample(MEMBERS[1:], rng.randint(1, 2))
        elif n < chores + checklists:
            t["items"] = {"%016x" % rng.getrandbits(64): ["open", f"item {k}", "1763800000000.0.a1 Alice",
                                                          "1763800000000.0.a1 Alice"]
                          for k in range(rng.randint(2, 12))}
        elif rng.random() < 0.03:
            t["assignee"] = "Alice"
        elif rng.random() < 0.4:
            t["assignee"] = rng.choice(MEMBERS[1:])
    return tasks


def fill_radicale(folder, user, collection, tasks):
    """The tasks as .ics files in the collection's folder (multifilesystem storage)."""
    path = os.path.join(folder, "collection-root", user, collection.strip("/").split("/")[-1])
    if not os.path.isfile(os.path.join(path, ".Radicale.props")):
        raise Failed(f"no Radicale collection at {path}: its storage is not the one expected")
    for t in tasks:
        with open(os.path.join(path, t["id"] + ".ics"), "w", newline="") as f:
            f.write(vtodo(t))


# ---------------------------------------------------------------------------------------------
# The runs


def check(status, want, what):
    if status not in want:
        raise Failed(f"{what} answered {status}, not {'/'.join(map(str, want))}")


def measure(client, collection, runs, put_targets, rename_targets, fetch):
    """{operation: [ms, …]} for the four operations; the first of each run is untimed."""
    times = {"propfind": [], "query": [], "sync": [], "put": []}
    s, _, body, _ = client.request("REPORT", collection, SYNC.format(token=""), {"Depth": "1"})
    check(s, (207,), "sync-collection with no token")
    token = sync_token(body)
    for i in range(runs + 1):
        s, _, body, ms = client.request("PROPFIND", collection, PROPFIND, {"Depth": "1"})
        check(s, (207,), "PROPFIND depth 1")
        if i:
            times["propfind"].append(ms)
        s, _, body, ms = client.request("REPORT", collection, QUERY, {"Depth": "1"})
        check(s, (207,), "calendar-query")
        if i:
            times["query"].append(ms)
        # One change, then the sync from the token before it.
        href = rename_targets[i % len(rename_targets)]
        ics, etag = fetch(href)
        s, _, _, _ = client.request("PUT", href, renamed(ics, i), dict(ICS, **{"If-Match": etag}))
        check(s, (201, 204), f"PUT {href} (the change before a sync)")
        s, _, body, ms = client.request("REPORT", collection, SYNC.format(token=token), {"Depth": "1"})
        check(s, (207,), "sync-collection with a token")
        changed = len(multistatus_hrefs(body))
        if changed < 1:
            raise Failed(f"sync-collection after one change listed {changed} items")
        token = sync_token(body)
        if i:
            times["sync"].append(ms)
        href = put_targets[i]
        ics, etag = fetch(href)
        s, _, _, ms = client.request("PUT", href, completed(ics), dict(ICS, **{"If-Match": etag}))
        check(s, (201, 204), f"PUT {href} (completing it)")
        if i:
            times["put"].append(ms)
    return times


def fetcher(client):
    def fetch(href):
        s, headers, body, _ = client.request("GET", href)
        check(s, (200,), f"GET {href}")
        return body.decode(), headers.get("etag", "")
    return fetch


def make_household(args, tmp, tasks):
    """The household of --tasks tasks, made once with `todo import`: its environment."""
    env = member_env(os.path.join(tmp, "todo"))
    if os.path.isdir(os.path.join(tmp, "todo", "todo")):
        return env
    run([args.todo, "init", "--name", "Alice", "--email", "alice@example.org"], env)
    for m in MEMBERS[1:]:
        run([args.todo, "member", "add", m], env)
    data = os.path.join(tmp, "tasks.json")
    with open(data, "w") as f:
        json.dump(tasks, f)
    start = time.perf_counter()
    run([args.todo, "import", data], env)
    log(f"todo import of {len(tasks):,} tasks: {time.perf_counter() - start:.1f} s")
    return env


def bench_todo_serve(args, tmp, tasks, figures):
    env = make_household(args, tmp, tasks)
    creds = json.loads(run([args.serve, "app-password", "Alice", "--json", "--base-url", "http://127.0.0.1:1"], env))
    log_file = open(os.path.join(tmp, "todo-serve.log"), "wb")
    proc, port = _start_todo_serve(args.serve, dict(env, TODO_SERVE_TODO=args.todo), log_file)
    try:
        client = Client(port, creds["user"], creds["password"], block=20)
        collection = f"/dav/{mkey('Alice')}/mine/"
        s, _, body, ms = client.request("PROPFIND", collection, PROPFIND, {"Depth": "1"})
        check(s, (207,), "PROPFIND of Mine")
        hrefs = [h for h in multistatus_hrefs(body) if h.endswith(".ics")]
        occurrences = [h for h in hrefs if re.search(r"-\d{8}\.ics$", h)]
        # One occurrence per chore, the earliest listed, when it is due by today (the chore's
        # current occurrence is Alice's turn): a later turn cannot be done ahead of time, as
        # with `todo done --on` (docs/CALDAV.md).
        today = time.strftime("%Y%m%d", time.localtime())
        per_chore = {}
        for h in sorted(occurrences):
            per_chore.setdefault(h.rsplit("-", 1)[0], h)
        per_chore = {k: h for k, h in per_chore.items() if h.rsplit("-", 1)[1][:8] <= today}
        plain = [h for h in hrefs if re.search(r"/[0-9a-f]{32}\.ics$", h)]
        figures["todo-serve items"] = len(hrefs)
        log(f"todo-serve: Mine holds {len(hrefs):,} items ({len(per_chore)} chores, {len(plain)} plain tasks); "
            f"first PROPFIND {ms:.0f} ms")
        if len(per_chore) < args.runs + 1 or not plain:
            raise Failed(f"Mine has {len(per_chore)} chores and {len(plain)} tasks: too few for {args.runs} runs")
        targets = random.Random("caldav-put").sample(sorted(per_chore.values()), args.runs + 1)
        times = measure(client, collection, args.runs, targets, plain[:5], fetcher(client))
        client.close()
    finally:
        code = _stop(proc)
        log_file.close()
    if code != 0:
        raise Failed(f"todo-serve exited {code} on SIGTERM")
    return times


# ---------------------------------------------------------------------------------------------
# Hostile requests: what one device may make the server spend


HOSTILE_PROPFIND = ("""<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:"><d:prop>""" + "<d:getetag/>" * 1000 + "</d:prop></d:propfind>")

HOSTILE_QUERY = ("""<?xml version="1.0" encoding="utf-8"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>""" + "<c:calendar-data/>" * 5000
                 + """</d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"/></c:comp-filter>"""
                 + "</c:filter></c:calendar-query>")

TOO_MANY_PROPS = ("""<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:x="urn:example"><d:prop>""" + "".join(f"<x:p{n}/>" for n in range(65))
                  + "</d:prop></d:propfind>")

# 64 different properties of 15,000-character names: each item's answer would be about 1 MB.
LONG_NAMES = ("""<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:x="urn:example"><d:prop>"""
              + "".join(f"<x:p{n}{'n' * 15000}/>" for n in range(64)) + "</d:prop></d:propfind>")

# Everything the household has, for a real client: every Household item's data.
HOUSEHOLD_DATA = ("""<?xml version="1.0" encoding="utf-8"?>
<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop>"""
                  """<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"/></c:comp-filter></c:filter>"""
                  "</c:calendar-query>")

PROPFIND0 = """<?xml version="1.0" encoding="utf-8"?>
<d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/"><d:prop><d:displayname/><cs:getctag/><d:sync-token/></d:prop></d:propfind>"""


def hostile_requests(home, token, item):
    """(label, method, path, body, depth) of each hostile request, with the status expected."""
    household = home + "household/"
    commit = token.rsplit("/", 2)[-2]
    forged = SYNC.format(token=f"http://todo.invalid/sync/{commit}/99991231")
    multiget = ("""<?xml version="1.0" encoding="utf-8"?>
<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop>"""
                + f"<d:href>{item}</d:href>" * ((1000 * 1000) // (len(item) + 20)) + "</c:calendar-multiget>")
    return [
        ("PROPFIND depth 1 of Household, 1,000 × getetag", "PROPFIND", household, HOSTILE_PROPFIND, "1", (207,)),
        ("calendar-query of Household, 5,000 × calendar-data", "REPORT", household, HOSTILE_QUERY, "1", (207,)),
        ("PROPFIND of 65 properties", "PROPFIND", household, TOO_MANY_PROPS, "1", (403,)),
        ("PROPFIND of 64 properties with 15,000-character names", "PROPFIND", household, LONG_NAMES, "1", (507,)),
        ("calendar-multiget naming one item in every href of a 1 MB body", "REPORT", household, multiget, "1", (207, 507)),
        ("sync-collection from a token of day 9999-12-31", "REPORT", home + "mine/", forged, "1", (403,)),
    ]


def vm_hwm(pid):
    """The process's peak resident memory (VmHWM), in MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise Failed("no VmHWM in /proc/PID/status")


def bench_hostile(args, tmp, tasks, figures):
    """A fresh todo-serve on the household: its peak memory after the ordinary requests, then
    after the hostile ones one at a time and 16 at once from one client; then another member's
    PROPFIND depth 0 while that client keeps 16 hostile requests in flight."""
    import threading
    env = make_household(args, tmp, tasks)
    alice = json.loads(run([args.serve, "app-password", "Alice", "--json", "--base-url", "http://127.0.0.1:1"], env))
    bob = json.loads(run([args.serve, "app-password", "Bob", "--json", "--base-url", "http://127.0.0.1:1"], env))
    log_file = open(os.path.join(tmp, "todo-serve-hostile.log"), "wb")
    proc, port = _start_todo_serve(args.serve, dict(env, TODO_SERVE_TODO=args.todo), log_file)
    out = {}
    try:
        home = f"/dav/{mkey('Alice')}/"
        client = Client(port, alice["user"], alice["password"], block=59)
        # What a real client asks: its collections, and everything the household has.
        s, _, body, _ = client.request("PROPFIND", home + "mine/", PROPFIND, {"Depth": "1"})
        check(s, (207,), "PROPFIND of Mine")
        item = next(h for h in multistatus_hrefs(body) if h.endswith(".ics"))
        s, _, _, _ = client.request("REPORT", home + "mine/", QUERY, {"Depth": "1"})
        check(s, (207,), "calendar-query of Mine")
        s, _, body, ms = client.request("REPORT", home + "household/", HOUSEHOLD_DATA, {"Depth": "1"})
        check(s, (207,), "calendar-query of Household with every item's data")
        out["largest answer MB"] = len(body) / 1e6
        log(f"hostile: Household's data, the largest real answer, {len(body) / 1e6:.1f} MB in {ms:.0f} ms")
        s, _, body, _ = client.request("REPORT", home + "mine/", SYNC.format(token=""), {"Depth": "1"})
        check(s, (207,), "sync-collection of Mine")
        token = sync_token(body)
        out["without MB"] = vm_hwm(proc.pid)
        requests = hostile_requests(home, token, item)
        for label, method, path, body, depth, want in requests:
            s, _, answer, ms = client.request(method, path, body, {"Depth": depth})
            check(s, want, label)
            log(f"hostile: {label}: {s}, {len(answer):,} bytes in {ms:.0f} ms")
        client.close()
        out["one at a time MB"] = vm_hwm(proc.pid)
        failures = []

        def send(n, results):
            c = Client(port, alice["user"], alice["password"], block=60)
            label, method, path, body, depth, want = requests[n % len(requests)]
            try:
                s, _, _, _ = c.request(method, path, body, {"Depth": depth})
                results.append(s)
                if s not in want:
                    failures.append(f"{label}: {s}")
            except (OSError, http.client.HTTPException) as e:
                failures.append(f"{label}: {e}")
            c.close()

        statuses = []
        threads = [threading.Thread(target=send, args=(n, statuses)) for n in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if failures:
            raise Failed("16 hostile requests at once: " + "; ".join(failures))
        out["sixteen at once MB"] = vm_hwm(proc.pid)
        log(f"hostile: peak memory {out['without MB']:.0f} MB after the ordinary requests, "
            f"{out['one at a time MB']:.0f} MB after the hostile ones one at a time, "
            f"{out['sixteen at once MB']:.0f} MB after 16 at once")

        # Bob's PROPFIND depth 0 while Alice's device keeps 16 hostile requests in flight.
        stop = threading.Event()
        seen = {}
        lock = threading.Lock()

        def keep_sending(n):
            c = Client(port, alice["user"], alice["password"], block=61)
            k = n
            while not stop.is_set():
                label, method, path, body, depth, _ = requests[k % len(requests)]
                k += 1
                try:
                    s, _, _, _ = c.request(method, path, body, {"Depth": depth})
                except (OSError, http.client.HTTPException):
                    s = "error"
                    c.close()
                with lock:
                    seen[s] = seen.get(s, 0) + 1
            c.close()

        bob_client = Client(port, bob["user"], bob["password"], block=62)
        bob_home = f"/dav/{mkey('Bob')}/mine/"
        s, _, _, ms = bob_client.request("PROPFIND", bob_home, PROPFIND0, {"Depth": "0"})
        check(s, (207,), "Bob's PROPFIND depth 0")
        idle = []
        for _ in range(args.runs):
            s, _, _, ms = bob_client.request("PROPFIND", bob_home, PROPFIND0, {"Depth": "0"})
            check(s, (207,), "Bob's PROPFIND depth 0")
            idle.append(ms)
        threads = [threading.Thread(target=keep_sending, args=(n,)) for n in range(16)]
        for t in threads:
            t.start()
        time.sleep(1)  # the 16 requests are in flight before the first measure
        during = []
        for _ in range(args.runs * 2):
            s, _, _, ms = bob_client.request("PROPFIND", bob_home, PROPFIND0, {"Depth": "0"})
            check(s, (207,), "Bob's PROPFIND depth 0 beside the hostile requests")
            during.append(ms)
        stop.set()
        for t in threads:
            t.join()
        bob_client.close()
        out["bob idle"] = {"p50": percentile(idle, 50), "p99": percentile(idle, 99)}
        out["bob during"] = {"p50": percentile(during, 50), "p99": percentile(during, 99), "n": len(during)}
        out["hostile statuses"] = {str(k): v for k, v in sorted(seen.items(), key=lambda kv: str(kv[0]))}
        log(f"hostile: Bob's PROPFIND depth 0 p50 {out['bob idle']['p50']:.1f} ms alone, "
            f"{out['bob during']['p50']:.1f} ms (p99 {out['bob during']['p99']:.1f}) beside 16 hostile requests "
            f"in flight (their answers: {out['hostile statuses']})")
    finally:
        code = _stop(proc)
        log_file.close()
    if code != 0:
        raise Failed(f"todo-serve exited {code} on SIGTERM")
    figures["hostile"] = out


def bench_radicale(args, tmp, tasks, figures):
    python = os.path.join(args.venv, "bin", "python")
    folder = os.path.join(tmp, "radicale")
    log_file = open(os.path.join(tmp, "radicale.log"), "wb")
    proc, port = _start_radicale(python, folder, log_file)
    try:
        client = Client(port, "alice", "x", block=40)
        collection = "/alice/tasks/"
        s, _, _, _ = client.request("MKCALENDAR", collection, MKCALENDAR)
        check(s, (201,), "Radicale's MKCALENDAR")
        start = time.perf_counter()
        fill_radicale(folder, "alice", collection, tasks)
        s, _, body, ms = client.request("PROPFIND", collection, PROPFIND, {"Depth": "1"})
        check(s, (207,), "Radicale's first PROPFIND")
        items = [h for h in multistatus_hrefs(body) if h.endswith(".ics")]
        figures["radicale items"] = len(items)
        log(f"Radicale: {len(items):,} items written as files and read once in {time.perf_counter() - start:.1f} s "
            f"(that PROPFIND {ms:.0f} ms)")
        if len(items) != len(tasks):
            raise Failed(f"Radicale lists {len(items)} items, not {len(tasks)}")
        rng = random.Random("caldav-radicale")
        targets = rng.sample(items, args.runs + 1)
        renames = [h for h in items if h not in targets][:5]
        times = measure(client, collection, args.runs, targets, renames, fetcher(client))
        client.close()
    finally:
        _stop(proc)
        log_file.close()
    return times


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root_dir = os.path.dirname(os.path.dirname(here))
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--todo", default=os.environ.get("TODO_BIN") or os.path.join(root_dir, ".build-release/release/todo"))
    parser.add_argument("--serve", default=os.environ.get("TODO_SERVE_BIN"))
    parser.add_argument("--venv", default=os.path.join(cache, "todo", "caldav-venv"))
    parser.add_argument("--tasks", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--json", help="write the figures here as JSON")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--hostile-only", action="store_true",
                        help="only the hostile requests' rows (no Radicale, no timed reads and writes)")
    parser.add_argument("--todo-serve-only", action="store_true",
                        help="only todo-serve's timed reads and writes (no Radicale, no hostile requests): "
                             "for alternating two builds of todo-serve")
    args = parser.parse_args()
    args.todo = os.path.abspath(args.todo)
    args.serve = os.path.abspath(args.serve or os.path.join(os.path.dirname(args.todo), "todo-serve"))
    for binary in (args.todo, args.serve, os.path.join(args.venv, "bin", "python")):
        if not os.access(binary, os.X_OK):
            log(f"no executable at {binary} (build it, or `scripts/deps.sh --test` for the venv)")
            return 1
    if args.tasks < 200 or args.runs < 1:
        log("--tasks must be at least 200 and --runs at least 1")
        return 1

    tmp = tempfile.mkdtemp(prefix="todo-bench-caldav.")
    figures = {"tasks": args.tasks, "runs": args.runs}
    try:
        tasks = household_tasks(args.tasks, random.Random(args.seed))
        results = {}
        if not args.hostile_only:
            benches = (("todo-serve", bench_todo_serve),) + (() if args.todo_serve_only else (("Radicale", bench_radicale),))
            for name, bench in benches:
                log(f"{name}: {args.runs} runs of each operation")
                results[name] = bench(args, tmp, tasks, figures)
        if not args.todo_serve_only:
            log("todo-serve: the hostile requests")
            bench_hostile(args, tmp, tasks, figures)
    except (Failed, OSError, ET.ParseError, http.client.HTTPException) as e:
        log(f"failed: {e}")
        return 1
    finally:
        if args.keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    labels = {
        "propfind": "PROPFIND depth 1 of the collection",
        "query": "REPORT calendar-query (open VTODOs, with data)",
        "sync": "REPORT sync-collection after one change",
        "put": "PUT completing an item (a chore's occurrence on todo-serve)",
    }
    targets = {
        "propfind": "ahead of Radicale", "query": "ahead of Radicale",
        "sync": "≤ 20 ms p50, ahead of Radicale", "put": "within 2× Radicale",
    }
    if args.todo_serve_only:
        print(f"CalDAV, {args.tasks:,} tasks, {args.runs} runs each, todo-serve alone ({args.serve}).\n")
        print("| operation | todo-serve p50 / p99 |")
        print("|---|---|")
        for op, label in labels.items():
            t = results["todo-serve"][op]
            figures[op] = {"todo-serve": {"p50": percentile(t, 50), "p99": percentile(t, 99)}}
            print(f"| {label} | {percentile(t, 50):.1f} / {percentile(t, 99):.1f} ms |")
        if args.json:
            with open(args.json, "w") as f:
                json.dump(figures, f, indent=1)
        return 0
    h = figures["hostile"]
    hostile_rows = [
        (f"todo-serve's peak memory (VmHWM), fresh, after the hostile requests one at a time and then 16 at once "
         f"from one client; after the ordinary requests alone (the largest real answer, {h['largest answer MB']:.1f} MB) "
         f"{h['without MB']:.0f} MB",
         f"{h['sixteen at once MB']:.0f} MB", "≤ 256 MB — " + ("met" if h["sixteen at once MB"] <= 256 else "MISSED")),
        (f"another member's PROPFIND depth 0 while one device keeps 16 hostile requests in flight: p50 (p99); "
         f"alone {h['bob idle']['p50']:.1f} ({h['bob idle']['p99']:.1f})",
         f"{h['bob during']['p50']:.1f} ({h['bob during']['p99']:.1f}) ms",
         "≤ 50 ms p50 — " + ("met" if h["bob during"]["p50"] <= 50 else "MISSED")),
    ]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    if args.hostile_only:
        print(f"CalDAV, {args.tasks:,} tasks: the hostile requests.\n")
        print("| figure | todo-serve | target |")
        print("|---|---|---|")
        for label, value, target in hostile_rows:
            print(f"| {label} | {value} | {target} |")
        return 0
    print(f"CalDAV, {args.tasks:,} tasks, {args.runs} runs each: todo-serve's Mine holds "
          f"{figures.get('todo-serve items', 0):,} items, Radicale's collection {figures.get('radicale items', 0):,}.\n")
    print("| operation | todo-serve p50 / p99 | Radicale p50 / p99 | p50 ratio (todo-serve / Radicale) | target |")
    print("|---|---|---|---|---|")
    for op, label in labels.items():
        t, r = results["todo-serve"][op], results["Radicale"][op]
        tp50, tp99, rp50, rp99 = percentile(t, 50), percentile(t, 99), percentile(r, 50), percentile(r, 99)
        figures[op] = {"todo-serve": {"p50": tp50, "p99": tp99}, "radicale": {"p50": rp50, "p99": rp99}}
        print(f"| {label} | {tp50:.1f} / {tp99:.1f} ms | {rp50:.1f} / {rp99:.1f} ms | {tp50 / rp50:.2f} | {targets[op]} |")
    for label, value, target in hostile_rows:
        print(f"| {label} | {value} | | | {target} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
