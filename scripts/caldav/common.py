"""What the CalDAV scripts share (scripts/caldav/clients.py, scripts/caldav/tester.py): a
household of Ann and Bob made with the `todo` being tested, an app password for Ann, `todo-serve`
on a free port of 127.0.0.1, Radicale (the reference server) beside it, `todo` and its JSON
read back, and a deadline for the whole run.

The household, as a family would have it:
  - Ann made it, Bob is a member;
  - "Dishes", a daily chore in turns of Ann and Bob (today is Ann's turn);
  - "Shopping", a checklist tagged shopping with the items milk and eggs;
  - "Call plumber" for Ann, due tomorrow; "Fix bike" for Bob.

Runs under the CalDAV tools' virtual environment's python (`scripts/deps.sh --test` makes it,
default ${XDG_CACHE_HOME:-~/.cache}/todo/caldav-venv). Every command and wait has a timeout;
failures raise Failed with a sentence that says what went wrong."""

import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "servers"))
from serve_client import Failed, member_env, run  # noqa: E402,F401

LISTENING = re.compile(r"^todo-serve: listening on http://127\.0\.0\.1:(\d+)/\s*$")
CHORE, CHECKLIST, ANNS, BOBS = "Dishes", "Shopping", "Call plumber", "Fix bike"


def default_venv():
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "todo", "caldav-venv")


def parse_common(parser):
    """The arguments every script takes: --todo, --serve, --venv, --keep, --seconds."""
    parser.add_argument("--todo", default=os.path.join(ROOT, ".build/debug/todo"))
    parser.add_argument("--serve", default=os.path.join(ROOT, ".build/debug/todo-serve"))
    parser.add_argument("--venv", default=default_venv(),
                        help="the CalDAV tools' virtual environment (scripts/deps.sh --test)")
    parser.add_argument("--seconds", type=float, default=600, help="the whole run's deadline")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args()
    args.todo, args.serve, args.venv = (os.path.abspath(p) for p in (args.todo, args.serve, args.venv))
    for binary in (args.todo, args.serve):
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"{parser.prog}: no executable at {binary}: build it first")
    if not os.access(os.path.join(args.venv, "bin", "python"), os.X_OK):
        raise SystemExit(f"{parser.prog}: no virtual environment at {args.venv}: "
                         "run `sh scripts/deps.sh --test` first")
    return args


def deadline(seconds, name):
    """Ends the whole process after `seconds`, whatever it is waiting on: SIGALRM raises
    Failed in the main thread (the scripts' `finally` stop the servers); a second alarm
    30 s later, should that cleanup hang too, exits at once."""

    def fire(signum, frame):
        signal.signal(signal.SIGALRM, lambda s, f: os._exit(3))
        signal.alarm(30)
        raise Failed(f"{name}: the run passed its deadline of {seconds:g} s")

    signal.signal(signal.SIGALRM, fire)
    signal.alarm(max(1, int(seconds)))


def free_port():
    """A port of 127.0.0.1 nobody listens on now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# The household


class Household:
    """Ann's machine under a temporary folder: the household made with `todo`, the ids of its
    tasks, and `todo` run with that machine's environment."""

    def __init__(self, todo, root=None):
        self.todo_bin = todo
        self.root = root or tempfile.mkdtemp(prefix="todo-caldav.")
        self.env = member_env(self.root, "Ann")
        self.env["TODO_MAINTENANCE_THRESHOLD"] = "off"
        self.repo = os.path.join(self.env["TODO_HOME"], "home")
        self.todo("init", "--name", "Ann", "--email", "ann@example.org")
        self.todo("member", "add", "Bob")
        self.todo("add", CHORE, "--every", "day", "--rotate", "Ann,Bob")
        self.todo("add", CHECKLIST, "--tag", "shopping", "--item", "milk", "--item", "eggs")
        self.todo("add", ANNS, "--assign", "Ann", "--due", "tomorrow")
        self.todo("add", BOBS, "--assign", "Bob")
        by_title = {t["title"]: t["id"] for t in self.list()}
        missing = [t for t in (CHORE, CHECKLIST, ANNS, BOBS) if t not in by_title]
        if missing:
            raise Failed(f"`todo list --json` lacks {missing} just after adding them")
        self.chore, self.checklist, self.anns, self.bobs = (by_title[t] for t in (CHORE, CHECKLIST, ANNS, BOBS))

    def todo(self, *args, timeout=60):
        """`todo ARGS` with Ann's environment: its stdout (Failed on a non-zero exit)."""
        return run([self.todo_bin] + list(args), self.env, timeout=timeout)

    def json(self, *args):
        out = self.todo(*args)
        try:
            return json.loads(out)
        except ValueError:
            raise Failed(f"`todo {' '.join(args)}` printed no JSON: {out[:300]!r}")

    def show(self, task):
        return self.json("show", task, "--json")

    def list(self, *extra):
        return self.json("list", "--json", *extra)

    def chores(self):
        return {c["id"]: c for c in self.json("chores", "--json")}

    def git(self, *args):
        return run(["git", "-C", self.repo] + list(args), self.env, timeout=60)

    def app_password(self, port):
        """A new app password of Ann's for the server at `port`: {"url", "user", "password"}."""
        out = self.todo("serve", "app-password", "Ann", "--json", "--base-url", f"http://127.0.0.1:{port}")
        try:
            creds = json.loads(out)
            return {k: creds[k] for k in ("url", "user", "password")}
        except (ValueError, KeyError, TypeError):
            raise Failed(f"`todo serve app-password Ann --json` printed {out[:300]!r}")


# ---------------------------------------------------------------------------------------------
# Servers


class Process:
    """A server started in its own process group, its output in a log file; stop() sends
    SIGTERM and returns the exit code (SIGKILL after `grace` s, then None)."""

    def __init__(self, name, cmd, env, log_path):
        self.name, self.log_path = name, log_path
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        self.pid = self.proc.pid
        self.drain = None

    def read_until(self, pattern, timeout):
        """Reads the output until a line matches `pattern` (its match), copying it to the log;
        then the rest goes to the log from a thread."""
        end = time.monotonic() + timeout
        pending = b""
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise Failed(f"{self.name} printed no line matching {pattern.pattern!r} within "
                             f"{timeout} s (output: {self.tail()})")
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                code = self.proc.wait(timeout=10)
                raise Failed(f"{self.name} exited {code} before it listened (output: {self.tail()})")
            self.log.write(chunk)
            self.log.flush()
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                m = pattern.match(line.decode("utf-8", "replace"))
                if m:
                    self.start_drain()
                    return m

    def start_drain(self):
        def copy():
            while True:
                try:
                    chunk = os.read(self.proc.stdout.fileno(), 4096)
                except (OSError, ValueError):  # closed by stop(): nothing more to copy
                    return
                if not chunk:
                    return
                self.log.write(chunk)
                self.log.flush()

        self.drain = threading.Thread(target=copy, daemon=True)
        self.drain.start()

    def tail(self, size=1500):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")[-size:].strip() or "nothing"
        except OSError:
            return "unreadable"

    def stop(self, grace=15):
        if self.proc.poll() is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            code = self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(timeout=10)
            code = None
        if self.drain:
            self.drain.join(timeout=5)
        self.proc.stdout.close()
        self.log.close()
        return code


class TodoServe(Process):
    """`todo-serve --listen 127.0.0.1:PORT --sync-every 0` for the household; .port, .base
    (`http://127.0.0.1:PORT/`) once it printed its `listening on` line."""

    def __init__(self, serve, household, port=None, timeout=60):
        self.port = port or free_port()
        env = dict(household.env, TODO_SERVE_TODO=household.todo_bin)
        super().__init__("todo-serve", [serve, "--listen", f"127.0.0.1:{self.port}", "--sync-every", "0"],
                         env, os.path.join(household.root, f"todo-serve-{self.port}.log"))
        try:
            m = self.read_until(LISTENING, timeout)
        except Failed:
            self.stop(grace=5)
            raise
        if int(m.group(1)) != self.port:
            self.stop(grace=5)
            raise Failed(f"todo-serve listens on {m.group(1)}, not on the port {self.port} it was given")
        self.base = f"http://127.0.0.1:{self.port}/"


class Radicale(Process):
    """Radicale from the virtual environment on a free port, storing in `folder`, every user
    name and password accepted (--auth-type none); .base once it answers HTTP."""

    def __init__(self, venv, folder, log_path, timeout=60):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}/"
        os.makedirs(folder, exist_ok=True)
        cmd = [os.path.join(venv, "bin", "python"), "-m", "radicale",
               "--server-hosts", f"127.0.0.1:{self.port}", "--storage-filesystem-folder", folder,
               "--auth-type", "none", "--rights-type", "owner_only", "--logging-level", "warning"]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.dirname(folder),
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        super().__init__("radicale", cmd, env, log_path)
        self.start_drain()
        end = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                self.stop(grace=5)
                raise Failed(f"radicale exited {self.proc.returncode} before answering (output: {self.tail()})")
            try:
                with urllib.request.urlopen(self.base, timeout=5) as r:
                    r.read()
                return
            except urllib.error.HTTPError:
                return  # any HTTP answer: it is up
            except (OSError, urllib.error.URLError):
                if time.monotonic() > end:
                    self.stop(grace=5)
                    raise Failed(f"radicale did not answer on {self.base} within {timeout} s (output: {self.tail()})")
                time.sleep(0.1)  # polling a port that is not open yet: nothing to wait on instead
