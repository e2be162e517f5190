#!/usr/bin/env python3
"""The server, the CLI and cron change one household at once, while another member's clone
syncs through the shared remote: nothing is lost, and both end with the same tasks.

    python3 scripts/serve-convergence.py [--todo .build/debug/todo]
        [--serve .build/debug/todo-serve] [--seconds 20] [--keep]

Alice's machine holds the household and runs `todo-serve --sync-every 3s` (Kim signed in from an
invite). For --seconds, at once, on Alice's machine: Kim's device adds tasks (POST /add), ticks
tasks done (POST /t/<id>/done) and presses "Sync now" (POST /sync) through HTTP; Kim's phone, a
CalDAV client with an app password, creates to-dos in Kim's Mine (PUT with If-None-Match) and
ticks Kim's tasks there (GET, then PUT with If-Match), some of which Bob completes too; Alice's
CLI runs `todo add` and `todo done`; a cron-like loop
runs `todo sync --quiet`. On Bob's machine, a clone of the same path remote, Bob adds, completes
and syncs. Then both sync until neither has anything to send or receive, and the script checks:
`todo list --all --json` is the same on both; every task added (by the page, the CLI or Bob) is
there, every task completed is done; `git fsck --strict` is clean in both clones and the remote;
the server exits 0 on SIGTERM.

Standard library only. Every command and request has a timeout; the whole run stops by itself.
Exit 0 when every check passed, 1 with what failed.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "servers"))
from serve_client import Failed, Phone, Server, Session, app_password, git, invite, member_env, run  # noqa: E402

BUSY = 75  # the household is locked by another command: try again (README, exit codes)
PREMADE = 60  # tasks per actor made beforehand, for each to complete


def say(message):
    print(f"serve-convergence: {message}", flush=True)


class Actor(threading.Thread):
    """One of the writers: runs `step(i)` until `stop` is set; records what it changed."""

    def __init__(self, name, step, stop, pause):
        super().__init__(name=name, daemon=True)
        self.step, self.stop, self.pause = step, stop, pause
        self.added, self.done = [], []  # titles added, ids completed: only what was acknowledged
        self.errors = []
        self.steps = 0

    def run(self):
        i = 0
        while not self.stop.is_set():
            try:
                self.step(self, i)
                self.steps += 1
            except Exception as e:  # recorded, and the run fails at the end
                self.errors.append(f"{self.name}, step {i}: {e}")
                if len(self.errors) > 5:
                    return
            i += 1
            self.stop.wait(self.pause)


def todo_retrying(todo, env, args, deadline):
    """`todo ARGS`, again while it exits 75 (another command holds the lock): its stdout."""
    while True:
        p = subprocess.run([todo] + args, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        if p.returncode == 0:
            return p.stdout.decode()
        if p.returncode != BUSY or time.monotonic() > deadline:
            raise Failed(f"`todo {' '.join(args)}` exited {p.returncode}: {p.stderr.decode().strip()[:500]}")
        time.sleep(0.05)


def premade(todo, env, prefix, count, rng):
    data = [{"id": "%032x" % rng.getrandbits(128), "title": f"{prefix} {i}",
             "status": "open", "assignee": "Kim" if prefix in ("web", "phone") else None} for i in range(count)]
    path = os.path.join(env["HOME"], f"{prefix}.json")
    with open(path, "w") as f:
        json.dump([{k: v for k, v in t.items() if v is not None} for t in data], f)
    run([todo, "import", path], env)
    return [t["id"] for t in data]


def converge(todo, alice, bob, rounds=6):
    """Sync both until a round moves nothing: Alice, Bob, Alice, ..."""
    for _ in range(rounds):
        before = (git(alice, "rev-parse", "main").strip(), git(bob, "rev-parse", "main").strip())
        for env in (alice, bob, alice):
            todo_retrying(todo, env, ["sync"], time.monotonic() + 60)
        after = (git(alice, "rev-parse", "main").strip(), git(bob, "rev-parse", "main").strip())
        if after[0] == after[1] and after == before:
            return after[0]
    raise Failed(f"Alice and Bob did not reach the same main after {rounds} rounds of syncs: {after}")


def tasks_of(todo, env):
    return {t["id"]: t for t in json.loads(run([todo, "list", "--all", "--json"], env))}


def main():
    root_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--todo", default=os.path.join(root_dir, ".build/debug/todo"))
    parser.add_argument("--serve", default=os.path.join(root_dir, ".build/debug/todo-serve"))
    parser.add_argument("--seconds", type=float, default=20, help="how long the writers run (default 20)")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    todo = os.path.abspath(args.todo)
    for binary in (todo, args.serve):
        if not os.access(binary, os.X_OK):
            print(f"serve-convergence: no executable at {binary}: build it first", file=sys.stderr)
            return 1

    tmp = tempfile.mkdtemp(prefix="todo-converge.")
    remote = os.path.join(tmp, "remote.git")
    alice = member_env(tmp, "Alice")
    bob = member_env(tmp, "Bob")
    server = None
    failure = None
    try:
        subprocess.run(["git", "init", "-q", "--bare", "--initial-branch=main", remote], env=alice, check=True, timeout=30)
        run([todo, "init", "--name", "Alice", "--email", "alice@example.org", "--remote", remote], alice)
        rng = random.Random("serve-convergence")
        ids = {p: premade(todo, alice, p, PREMADE, rng) for p in ("web", "cli", "bob", "phone")}
        run([todo, "sync"], alice)
        run([todo, "clone", remote, "--name", "Bob", "--email", "bob@example.org"], bob)
        serve_env = dict(alice, TODO_SERVE_TODO=todo)
        # Its background sync every 3 s as well as 10 s after a change (docs/SERVE.md).
        server = Server(args.serve, serve_env, ["--sync-every", "3s"])
        link = invite(args.serve, serve_env, "Kim", server.base)
        kim = Session(server.port)
        kim.sign_in(link)
        phone = Phone(server.port, *app_password(args.serve, serve_env, "Kim", server.base), "Kim")
        say(f"todo-serve on port {server.port}, Kim signed in; writers run for {args.seconds:g} s")

        stop = threading.Event()
        syncs = {}  # the page's "Sync now": the notice on the page it leads to -> count
        deadline = time.monotonic() + args.seconds + 120

        def web(actor, i):
            # A fresh connection from its own loopback address every step: the server's
            # per-client limits (30 POSTs in 10 s) are for one phone, not for this test.
            kim.connect(f"127.0.{1 + i // 250}.{1 + i % 250}")
            page = kim.get("/add")
            form = page.form_with_button("Add task")
            if page.status != 200 or form is None:
                raise Failed(f"GET /add answered {page.status} without the Add task form")
            title = f"web added {i}"
            r = kim.submit(form, {"title": title, "due": "", "assignee": "", "tags": ""})
            if r.status != 303:
                raise Failed(f"POST /add answered {r.status}")
            actor.added.append(title)
            if i % 4 == 3:
                # "Sync now" on the page: the server's own sync, amid the others'.
                r = kim.post("/sync", {})
                if r.status != 303:
                    raise Failed(f"POST /sync answered {r.status}")
                page = kim.follow(r)
                notices = page.page.texts["notice"]
                outcome = notices[0] if notices else f"no notice ({page.status})"
                syncs[outcome] = syncs.get(outcome, 0) + 1
            if i < PREMADE:
                task = ids["web"][i]
                r = kim.post(f"/t/{task}/done", {})
                if r.status != 303:
                    raise Failed(f"POST /t/{task}/done answered {r.status}")
                actor.done.append(task)

        def phone_step(actor, i):
            title = f"phone added {i}"
            uid = f"phone-{i}"
            body = ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//convergence//EN\r\nBEGIN:VTODO\r\n"
                    f"UID:{uid}\r\nDTSTAMP:20261126T120000Z\r\nSUMMARY:{title}\r\nX-PHONE-ORDER:{i}\r\n"
                    "END:VTODO\r\nEND:VCALENDAR\r\n").encode()
            status, _, text = phone.request("PUT", phone.home + f"mine/{uid}.ics", body,
                                            {"Content-Type": "text/calendar", "If-None-Match": "*"})
            if status != 201:
                raise Failed(f"the phone's PUT of a new to-do answered {status}: {text[:300]!r}")
            actor.added.append(title)
            if i < PREMADE:
                task = ids["phone"][i]
                href = phone.home + f"mine/{task}.ics"
                status, headers, item = phone.request("GET", href)
                if status == 404:
                    return  # Bob completed it and a sync brought it in: no longer open in Mine
                if status != 200:
                    raise Failed(f"the phone's GET of {href} answered {status}")
                done = item.replace(b"STATUS:NEEDS-ACTION", b"STATUS:COMPLETED")
                status, _, text = phone.request("PUT", href, done, {"Content-Type": "text/calendar",
                                                                    "If-Match": headers.get("etag", "")})
                if status not in (201, 204):
                    raise Failed(f"the phone's PUT completing {task} answered {status}: {text[:300]!r}")
                actor.done.append(task)

        def cli(actor, i):
            title = f"cli added {i}"
            todo_retrying(todo, alice, ["add", title], deadline)
            actor.added.append(title)
            if i < PREMADE:
                todo_retrying(todo, alice, ["done", ids["cli"][i]], deadline)
                actor.done.append(ids["cli"][i])

        def cron(actor, i):
            # `todo sync --quiet` as cron runs it: a sync that finds another running is not an
            # error; its exit code is what cron would mail about.
            p = subprocess.run([todo, "sync", "--quiet"], env=alice, stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=120)
            if p.returncode not in (0, BUSY):
                raise Failed(f"`todo sync --quiet` exited {p.returncode}: {p.stderr.decode().strip()[:400]}")

        def bob_step(actor, i):
            title = f"bob added {i}"
            todo_retrying(todo, bob, ["add", title], deadline)
            actor.added.append(title)
            if i < PREMADE:
                todo_retrying(todo, bob, ["done", ids["bob"][i]], deadline)
                actor.done.append(ids["bob"][i])
            if i % 4 == 0 and i // 4 < PREMADE // 2:
                # A task the page completes too, from the other end of its list: the same file
                # changed on both sides of a sync.
                todo_retrying(todo, bob, ["done", ids["web"][-1 - i // 4]], deadline)
                actor.done.append(ids["web"][-1 - i // 4])
            if i % 5 == 1 and i // 5 < PREMADE // 2:
                # One the phone completes too, from the other end of its list.
                todo_retrying(todo, bob, ["done", ids["phone"][-1 - i // 5]], deadline)
                actor.done.append(ids["phone"][-1 - i // 5])
            if i % 3 == 2:
                todo_retrying(todo, bob, ["sync"], deadline)

        actors = [Actor("web", web, stop, 0.2), Actor("phone", phone_step, stop, 0.2), Actor("cli", cli, stop, 0.1),
                  Actor("cron", cron, stop, 0.5), Actor("bob", bob_step, stop, 0.1)]
        for a in actors:
            a.start()
        stop.wait(args.seconds)
        stop.set()
        for a in actors:
            a.join(timeout=180)
            if a.is_alive():
                raise Failed(f"the {a.name} writer did not stop within 180 s of the end")
        errors = [e for a in actors for e in a.errors]
        if errors:
            raise Failed("writers failed: " + "; ".join(errors[:6]))
        for a in actors:
            say(f"{a.name}: {a.steps} steps, {len(a.added)} added, {len(a.done)} done")
        say("the page's Sync now: " + ", ".join(f"{n} {k}" for k, n in sorted(syncs.items())))
        if not any(k.startswith("Synced") for k in syncs):
            raise Failed(f"the server's own sync never succeeded during the run: {syncs}")
        check_each = [a for a in actors if a.name != "cron"]
        if any(not a.added for a in check_each):
            raise Failed("a writer made no change in the time given: " +
                         ", ".join(a.name for a in check_each if not a.added))

        # The server may still sync in the background; stop it first so the end state is final.
        code = server.stop()
        server = None
        if code != 0:
            raise Failed(f"todo-serve exited {code} on SIGTERM, not 0")
        head = converge(todo, alice, bob)
        a_tasks, b_tasks = tasks_of(todo, alice), tasks_of(todo, bob)
        if a_tasks != b_tasks:
            only = sorted(set(a_tasks) ^ set(b_tasks))
            differ = [i for i in set(a_tasks) & set(b_tasks) if a_tasks[i] != b_tasks[i]]
            raise Failed(f"`todo list --all --json` differs: {len(only)} tasks on one side only, "
                         f"{len(differ)} different (first: {(only + differ)[:3]})")
        titles = {}
        for t in a_tasks.values():
            titles.setdefault(t["title"], []).append(t)
        lost = [f"{a.name}: {title}" for a in check_each for title in a.added if title not in titles]
        if lost:
            raise Failed(f"{len(lost)} added tasks are missing after the syncs: {lost[:6]}")
        twice = [t for t, found in titles.items() if len(found) > 1 and "added" in t]
        if twice:
            raise Failed(f"tasks added once are there twice: {twice[:6]}")
        undone = [f"{a.name}: {i}" for a in check_each for i in a.done if a_tasks.get(i, {}).get("status") != "done"]
        if undone:
            raise Failed(f"{len(undone)} completed tasks are not done after the syncs: {undone[:6]}")
        web_authors = git(alice, "log", "--format=%an", "--fixed-strings", "--grep=web added").split()
        if len(web_authors) != len(actors[0].added) or set(web_authors) != {"Kim"}:
            raise Failed(f"the page's {len(actors[0].added)} additions are {len(web_authors)} commits "
                         f"by {sorted(set(web_authors))}, not one each by Kim")
        phone_authors = git(alice, "log", "--format=%an", "--fixed-strings", "--grep=phone added").split()
        if len(phone_authors) != len(actors[1].added) or set(phone_authors) != {"Kim"}:
            raise Failed(f"the phone's {len(actors[1].added)} additions are {len(phone_authors)} commits "
                         f"by {sorted(set(phone_authors))}, not one each by Kim")
        # A sync may have started housekeeping detached (`todo maintenance --auto`), which
        # replaces packs while it runs: git fsck would then find a pack gone under it. One
        # `todo maintenance` each waits its turn (exit 75 while another runs) and leaves the
        # household and its path remote packed and still.
        for env in (alice, bob):
            todo_retrying(todo, env, ["maintenance"], time.monotonic() + 120)
        for env in (alice, bob):
            git(env, "fsck", "--strict", "--no-progress")
        subprocess.run(["git", "--git-dir", remote, "fsck", "--strict", "--no-progress"], env=alice,
                       check=True, timeout=120, capture_output=True)
        total = sum(len(a.added) + len(a.done) for a in check_each)
        say(f"converged at {head[:12]}: {len(a_tasks)} tasks the same on both, all {total} changes "
            f"present, git fsck clean in both clones and the remote")
    except Failed as e:
        failure = str(e)
    except subprocess.CalledProcessError as e:
        failure = f"`{' '.join(e.cmd)}` exited {e.returncode}: {(e.stderr or b'').decode().strip()[:500]}"
    except Exception:
        failure = "unexpected error:\n" + traceback.format_exc()
    finally:
        if server:
            code = server.stop()
            if code != 0 and failure is None:
                failure = f"todo-serve exited {code} on SIGTERM, not 0"
            if failure:
                failure += f"\n(todo-serve's stderr: {server.stderr_tail()})"
    if args.keep:
        say(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    if failure:
        print(f"serve-convergence: FAILED: {failure}", file=sys.stderr, flush=True)
        return 1
    print("serve-convergence: 1 passed, 0 failed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
