#!/usr/bin/env python3
"""`todo-serve`'s CalDAV beside Radicale, in the same run: a phone's reads and writes on a
household of 10,000 tasks, p50 and p99 in milliseconds.

    python3 scripts/bench/caldav.py [--todo BIN] [--serve BIN] [--venv DIR] [--tasks 10000]
        [--runs 20] [--json FILE] [--keep]

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


def bench_todo_serve(args, tmp, tasks, figures):
    env = member_env(os.path.join(tmp, "todo"))
    run([args.todo, "init", "--name", "Alice", "--email", "alice@example.org"], env)
    for m in MEMBERS[1:]:
        run([args.todo, "member", "add", m], env)
    data = os.path.join(tmp, "tasks.json")
    with open(data, "w") as f:
        json.dump(tasks, f)
    start = time.perf_counter()
    run([args.todo, "import", data], env)
    log(f"todo import of {len(tasks):,} tasks: {time.perf_counter() - start:.1f} s")
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
        for name, bench in (("todo-serve", bench_todo_serve), ("Radicale", bench_radicale)):
            log(f"{name}: {args.runs} runs of each operation")
            results[name] = bench(args, tmp, tasks, figures)
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
    print(f"CalDAV, {args.tasks:,} tasks, {args.runs} runs each: todo-serve's Mine holds "
          f"{figures.get('todo-serve items', 0):,} items, Radicale's collection {figures.get('radicale items', 0):,}.\n")
    print("| operation | todo-serve p50 / p99 | Radicale p50 / p99 | p50 ratio (todo-serve / Radicale) | target |")
    print("|---|---|---|---|---|")
    for op, label in labels.items():
        t, r = results["todo-serve"][op], results["Radicale"][op]
        tp50, tp99, rp50, rp99 = percentile(t, 50), percentile(t, 99), percentile(r, 50), percentile(r, 99)
        figures[op] = {"todo-serve": {"p50": tp50, "p99": tp99}, "radicale": {"p50": rp50, "p99": rp99}}
        print(f"| {label} | {tp50:.1f} / {tp99:.1f} ms | {rp50:.1f} / {rp99:.1f} ms | {tp50 / rp50:.2f} | {targets[op]} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
