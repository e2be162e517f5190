#!/usr/bin/env python3
"""Randomized household exploration: three members with skewed clocks share a bare path remote
and run random commands (tasks, chores, checklists, undo and redo, members joining, going away
and leaving, conflict restores, syncs), some killed
with SIGKILL at a random moment, some syncs against a remote that has gone away. At the end
everyone syncs until quiet and the run checks what the README promises: identical trees,
`git fsck --strict` clean everywhere, no signal deaths or crash reports, only documented exit
codes, and every acknowledged write either stands, is in the conflict log, or was overwritten by
a write made after seeing it.

    scripts/chaos.py [--seeds 1-20] [--ops 150] [--todo .build/debug/todo] [--keep]

A failing seed is replayed with `--seeds N`; `--keep` leaves its directory for a look and
`--trace` prints every command.

With `--encrypt` the remote is encrypted (docs/ENCRYPTION.md): Alice runs `init --encrypt`,
every other member runs `todo key` and is granted before cloning, and leaves switch keys. A
member whose keys were taken away gets 77 from sync (allowed only for a member someone made
leave); at the end such a member is left out of the comparison, and the writes they never sent
are exempt: nobody can receive them.
"""

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DOCUMENTED = {0, 64, 65, 66, 70, 73, 75, 77, 78}
CRASH_MARKS = ("Fatal error", "Swift runtime failure", "Current stack trace", "backtrace", "Illegal instruction",
               "Segmentation fault", "SIGSEGV", "SIGILL", "SIGTRAP", "💣")
START_MS = 1_763_629_200_000  # 2025-11-20 09:00 UTC
DAY = 86_400_000
HOUR = 3_600_000
WORDS = ["milk", "eggs", "bread", "trash", "plants", "plumber", "car", "garage", "door", "Café", "oat",
         "bills", "cat", "dog", "window", "laundry", "dishes", "ünïcödé", "x"]
TAGS = ["home", "groceries", "garden", "work", "kids", "urgent"]
RULES = ["day", "3d", "week", "2w", "tue", "mon,thu", "weekday", "weekend", "month", "1st", "15th"]
PRIORITIES = ["low", "normal", "high"]


def item_key(text):
    h = 0xCBF29CE484222325
    for b in " ".join(text.split()).lower().encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


class Failure(Exception):
    pass


class Member:
    def __init__(self, world, name):
        self.world = world
        self.name = name
        self.root = os.path.join(world.root, name)
        self.home = os.path.join(self.root, "home")
        self.todo_home = os.path.join(self.root, "todo")
        os.makedirs(self.home)
        self.skew = 0
        self.key = None  # with --encrypt: this device's recipient
        self.left = False  # someone ran `member leave` naming this member
        self.out = False  # with --encrypt: a settling sync found this member's keys taken away
        self.known = set()  # write serials this member may have seen (an upper bound)
        self.repo = os.path.join(self.todo_home, "home")

    def env(self):
        w = self.world
        return {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "HOME": self.home, "LANG": "C", "LC_ALL": "C", "TZ": "UTC", "GIT_CONFIG_NOSYSTEM": "1",
            "XDG_CONFIG_HOME": self.home + "/.config", "XDG_STATE_HOME": self.root + "/state",
            "TODO_HOME": self.todo_home, "NO_COLOR": "1", "TODO_NOW": str(w.now + self.skew),
        }


class World:
    def __init__(self, seed, todo, ops, trace, root):
        self.seed = seed
        self.rng = random.Random(seed)
        self.todo = todo
        self.ops = ops
        self.trace = trace
        self.root = root
        self.now = START_MS
        self.remote = os.path.join(root, "remote.git")
        self.remote_known = set()
        self.members = []
        self.writes = []  # dicts: serial, member, task, field, value, acked, wild
        self.tasks = {}  # full id -> {"kind": plain|chore|checklist, "rotation": bool, "items": [...]}
        self.serial = 0
        self.counts = {}
        self.runs = 0
        self.killed = 0
        self.problems = []
        self.last_killed = {}
        self.extreme = False
        self.encrypt = False

    # -- running ---------------------------------------------------------------------------------

    def log(self, text):
        if self.trace:
            print(text, flush=True)

    def start(self, m, args):
        self.runs += 1
        return subprocess.Popen([self.todo] + args, env=m.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, start_new_session=True, cwd=m.root)

    def run(self, m, args, kill_after=None, started=None):
        p = started or self.start(m, args)
        killed = False
        try:
            if kill_after is not None:
                try:
                    out, err = p.communicate(timeout=kill_after)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    out, err = p.communicate()
                    killed = True
            else:
                out, err = p.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            self.problem(f"{m.name}: hung: {' '.join(args)}")
        out = out.decode("utf-8", "replace")
        err = err.decode("utf-8", "replace")
        rc = p.returncode
        self.log(f"[{m.name} t={m.env()['TODO_NOW']}] todo {' '.join(args)} -> {rc}{' KILLED' if killed else ''}"
                 + (f"\n    out: {out.strip()[:300]}" if out.strip() else "")
                 + (f"\n    err: {err.strip()[:500]}" if err.strip() else ""))
        if killed:
            self.killed += 1
            self.last_killed[m.name] = args
            return None, out, err
        if rc < 0:
            self.problem(f"{m.name}: `todo {' '.join(args)}` died of signal {-rc}: {err[-2000:]}")
        elif rc not in DOCUMENTED:
            self.problem(f"{m.name}: `todo {' '.join(args)}` exited {rc} (undocumented): {err[-1000:]}")
        elif rc == 70:
            self.problem(f"{m.name}: `todo {' '.join(args)}` exited 70 (internal failure): {err[-1000:]}")
        for mark in CRASH_MARKS:
            if mark in err or mark in out:
                self.problem(f"{m.name}: `todo {' '.join(args)}` printed {mark!r}: {err[-2000:]}")
        if m.name in self.last_killed and rc in (70, 73, 75):
            self.problem(f"{m.name}: after a killed `todo {' '.join(self.last_killed[m.name])}`, "
                         f"`todo {' '.join(args)}` exited {rc}: {err.strip()[:500]}")
        self.last_killed.pop(m.name, None)
        return rc, out, err

    def problem(self, text):
        self.problems.append(text)
        self.log("PROBLEM: " + text)

    def git(self, repo, *args):
        return subprocess.run(["git", "-C", repo] + list(args), capture_output=True, text=True,
                              env={"PATH": os.environ["PATH"], "HOME": self.root, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"})

    def fsck(self, repo, who, status=True):
        r = self.git(repo, "fsck", "--strict", "--no-progress", "--no-dangling")
        lines = [l for l in (r.stdout + r.stderr).splitlines()
                 if l and not l.startswith("notice: HEAD points to an unborn branch")]
        if r.returncode != 0 or lines:
            self.problem(f"git fsck of {who} ({repo}): exit {r.returncode}: {' | '.join(lines[:10])}")
        # A read-only command does not finish a change a kill interrupted (the next writing one
        # does), so the work tree is judged only after writing commands.
        st = self.git(repo, "status", "--porcelain") if who != "remote" and status else None
        if st is not None and st.stdout.strip():
            self.problem(f"git status of {who} not clean: {st.stdout.strip()[:500]}")

    # -- the model -------------------------------------------------------------------------------

    def write(self, m, task, field, value, acked=True, wild=False):
        self.serial += 1
        w = {"serial": self.serial, "member": m.name, "task": task, "field": field, "value": value,
             "acked": acked, "wild": wild, "seen": set(m.known), "now": self.now + m.skew}
        self.writes.append(w)
        m.known.add(self.serial)
        return w

    def pick_task(self, m, kind=None):
        # Mostly tasks this member has (by what it has seen), sometimes any task.
        anyone = self.rng.random() < 0.05
        ids = [t for t, info in self.tasks.items() if (kind is None or info["kind"] == kind)
               and (anyone or info["serial"] in m.known)]
        if not ids:
            return None
        return self.rng.choice(ids)

    def short(self, tid):
        return tid[: self.rng.choice([4, 8, 32])] if self.rng.random() < 0.3 else tid[:8]

    def text(self, n=None):
        n = n or self.rng.randint(1, 4)
        return " ".join(self.rng.choice(WORDS) for _ in range(n)) + f" {self.serial + 1}"

    def date(self):
        r = self.rng.random()
        if r < 0.6:
            base = self.now + self.rng.randint(-10, 30) * DAY
            return time.strftime("%Y-%m-%d", time.gmtime(base / 1000))
        return self.rng.choice(["today", "tomorrow", "fri", "+3d", "+2w", "eom", "next mon", "1st", "+1y", "eoy", "31st"])

    # -- operations ------------------------------------------------------------------------------

    def op_add(self, m, kill):
        title = self.text()
        args = ["add", title, "--json"]
        fields = {"title": title}
        kind = "plain"
        r = self.rng.random()
        rotation = False
        items = []
        if r < 0.15:
            kind = "chore"
            args += ["--every", self.rng.choice(RULES)]
            if self.rng.random() < 0.6:
                names = [x.name for x in self.members]
                self.rng.shuffle(names)
                args += ["--rotate", ",".join(names[: self.rng.randint(1, 3)])]
                rotation = True
            if self.rng.random() < 0.5:
                args += ["--from", self.date()]
        elif r < 0.3:
            kind = "checklist"
            for _ in range(self.rng.randint(1, 4)):
                it = self.rng.choice(WORDS)
                items.append(it)
                args += ["--item", it]
        if self.rng.random() < 0.3:
            d = time.strftime("%Y-%m-%d", time.gmtime((self.now + self.rng.randint(-5, 20) * DAY) / 1000))
            args += ["--due", d]
            fields["due"] = d
        if self.rng.random() < 0.3 and not rotation:
            a = self.rng.choice([x.name for x in self.members])
            args += ["--assign", a]
            fields["assignee"] = a
        if self.rng.random() < 0.3:
            t = self.rng.choice(TAGS)
            args += ["--tag", t]
            fields["tag:" + t] = True
        if self.rng.random() < 0.3:
            p = self.rng.choice(PRIORITIES)
            args += ["--priority", p]
            fields["priority"] = p
        if self.rng.random() < 0.2:
            n = self.text()
            args += ["--note", n]
            fields["notes"] = n
        rc, out, err = self.run(m, args, kill)
        if rc == 0:
            try:
                tid = json.loads(out)["id"]
            except Exception:
                self.problem(f"{m.name}: add --json printed no id: {out!r}")
                return
            for f, v in fields.items():
                self.write(m, tid, f, v)
            for it in items:
                self.write(m, tid, "item:" + item_key(it), "open")
            w = self.write(m, tid, "exists", True)
            self.tasks[tid] = {"kind": kind, "rotation": rotation, "items": items, "by": m.name, "serial": w["serial"]}

    def op_edit(self, m, kill):
        tid = self.pick_task(m)
        if tid is None:
            return self.op_add(m, kill)
        info = self.tasks[tid]
        args = ["edit", self.short(tid)]
        fields = {}
        choices = ["title", "notes", "due", "assignee", "priority", "tag", "untag"]
        if info["kind"] == "checklist":
            choices += ["item", "check", "uncheck", "remove-item"] * 2
        if info["kind"] == "chore":
            choices += ["every", "rotate", "assign-turn"] * 2
        for c in self.rng.sample(choices, self.rng.randint(1, 3)):
            if c == "title":
                v = self.text()
                args += ["--title", v]
                fields["title"] = v
            elif c == "notes":
                v = self.text() if self.rng.random() < 0.8 else ""
                args += ["--note", v]
                fields["notes"] = v
            elif c == "due":
                if self.rng.random() < 0.2:
                    args += ["--no-due"]
                    fields["due"] = None
                else:
                    d = time.strftime("%Y-%m-%d", time.gmtime((self.now + self.rng.randint(-5, 20) * DAY) / 1000))
                    args += ["--due", d]
                    fields["due"] = d
            elif c == "assignee":
                if info["rotation"]:
                    continue
                if self.rng.random() < 0.2:
                    args += ["--unassign"]
                    fields["assignee"] = None
                else:
                    a = self.rng.choice([x.name for x in self.members])
                    args += ["--assign", a]
                    fields["assignee"] = a
            elif c == "priority":
                p = self.rng.choice(PRIORITIES)
                args += ["--priority", p]
                fields["priority"] = p
            elif c in ("tag", "untag"):
                t = self.rng.choice(TAGS)
                if "tag:" + t in fields:
                    continue
                args += ["--" + c, t]
                fields["tag:" + t] = c == "tag"
            elif c == "item":
                it = self.rng.choice(WORDS)
                if "item:" + item_key(it) in fields:
                    continue
                args += ["--item", it]
                info["items"].append(it)
                fields["item:" + item_key(it)] = ("+", "open")
            elif c in ("check", "uncheck", "remove-item"):
                if not info["items"]:
                    continue
                it = self.rng.choice(info["items"])
                if "item:" + item_key(it) in fields:
                    continue
                if self.rng.random() < 0.8:
                    mark, state = {"check": ("x", "checked"), "uncheck": ("o", "open"), "remove-item": ("-", "removed")}[c]
                    fields["item:" + item_key(it)] = (mark, state)
                else:
                    it = str(self.rng.randint(1, 4))
                    fields["numbered"] = None
                args += ["--" + c, it]
            elif c == "every":
                args += ["--every", self.rng.choice(RULES)]
            elif c == "rotate":
                names = [x.name for x in self.members]
                self.rng.shuffle(names)
                args += ["--rotate", ",".join(names[: self.rng.randint(0, 3)])]
            elif c == "assign-turn":
                if info["rotation"]:
                    args += ["--assign", self.rng.choice([x.name for x in self.members])]
        if len(args) == 2:
            return
        rc, out, err = self.run(m, args, kill)
        if rc is None:
            for f, v in fields.items():
                if f == "numbered":
                    self.write(m, tid, "*", None, acked=False, wild=True)
                else:
                    self.write(m, tid, f, v[1] if f.startswith("item:") else v, acked=False)
        elif rc == 0:
            # Only fields whose value changed here are written ("Changed title, +tag: ...").
            changed = set()
            first = out.splitlines()[0] if out else ""
            if first.startswith("Changed "):
                for name in first[len("Changed "):].rsplit(": ", 1)[0].split(", "):
                    if name[:1] in "+-":
                        changed.add("tag:" + name[1:])
                        changed.add((name[0], item_key(name[1:])))
                    if name[:2] in ("x ", "o "):
                        changed.add((name[0], item_key(name[2:])))
                    changed.add(name)
            # An item named by its number may be one named by text too: its write comes last.
            for f, v in sorted(fields.items(), key=lambda fv: fv[0] == "numbered"):
                if f == "numbered":
                    self.write(m, tid, "*", None, acked=False, wild=True)
                elif f.startswith("item:"):
                    if (v[0], f[5:]) in changed:
                        self.write(m, tid, f, v[1])
                elif f in changed:
                    self.write(m, tid, f, v)

    def op_state(self, m, kill):
        verb = self.rng.choice(["done", "done", "reopen", "rm", "restore", "skip", "swap", "pass"])
        if verb in ("swap", "pass"):
            # A turn changing hands (a chore may have no rotation, or nobody a coming turn:
            # refused with 64 or 65, nothing changed).
            tid = self.pick_task(m, "chore")
            if tid is None:
                return
            other = self.rng.choice([x.name for x in self.members])
            self.run(m, [verb, self.short(tid), "--with" if verb == "swap" else "--to", other], kill)
            return
        kind = "chore" if verb == "skip" else None
        tid = self.pick_task(m, kind)
        if tid is None:
            return
        ids = [self.short(tid)]
        if self.rng.random() < 0.15:
            other = self.pick_task(m, kind)
            if other and other != tid:
                ids.append(self.short(other))
        args = [verb] + ids
        if verb in ("done", "skip") and self.rng.random() < 0.1:
            args.append("--all")
        elif verb in ("done", "skip") and self.rng.random() < 0.15:
            # One occurrence by its date: a missed one caught up, or one that is not an
            # occurrence, or not yet come (refused with 64).
            args += ["--on", self.rng.choice(["yesterday", "today", "tomorrow", "-3d", "2025-11-18", "+9d"])]
        rc, out, err = self.run(m, args, kill)

    def op_undo(self, m, kill):
        args = ["redo"] if self.rng.random() < 0.3 else ["undo"]
        if self.rng.random() < 0.3:
            args.append("--force")
        rc, out, err = self.run(m, args, kill)
        if rc in (0, None):
            self.write(m, None, "*", None, acked=False, wild=True)

    def op_roster(self, m, kill):
        """Members join, go away and leave (docs/FORMAT.md, "Members"): a name already in use,
        a window already past or a leaver handing tasks to themselves is refused or changes
        nothing; every outcome must still be a documented exit code."""
        names = [x.name for x in self.members] + ["Lee", "Sam"]
        who = self.rng.choice(names)
        roll = self.rng.random()
        if roll < 0.3:
            args = ["member", "add", who]
        elif roll < 0.7:
            args = ["member", "away", who, "--from", self.rng.choice(["today", "tomorrow", "+3d", "2025-11-18"]),
                    "--until", self.rng.choice(["+2d", "+10d", "tomorrow", "2025-11-19"])]
        elif roll < 0.85:
            args = ["member", "away", who, "--clear"]
        else:
            args = ["member", "leave", self.rng.choice(["Lee", "Sam", who])]
            if self.rng.random() < 0.5:
                args += ["--to", self.rng.choice(names)]
            # A leave hands the leaver's open tasks on: it rewrites assignees it has seen.
            rc, out, err = self.run(m, args, kill)
            if rc in (0, None):
                self.write(m, None, "*", None, acked=False, wild=True)
                for x in self.members:
                    if x.name == args[2]:
                        x.left = True
            return
        member = next((x for x in self.members if x.name == who), None)
        if self.encrypt and member is not None and args[:2] == ["member", "add"]:
            args += ["--key", member.key]
        self.run(m, args, kill)

    def op_restore_conflict(self, m, kill):
        rc, out, err = self.run(m, ["conflicts", "--json"])
        if rc != 0:
            return
        try:
            entries = json.loads(out)
        except Exception:
            self.problem(f"{m.name}: conflicts --json not JSON: {out[:300]!r}")
            return
        if not entries:
            return
        e = self.rng.choice(entries)
        eid = e.get("id") or e.get("entry", {}).get("id")
        if not eid:
            return
        rc, out, err = self.run(m, ["conflicts", "restore", eid[:8]], kill)
        if rc in (0, None):
            self.write(m, e.get("task"), "*", None, acked=False, wild=True)

    def op_sync(self, m, kill):
        rc, out, err = self.run(m, ["sync"] + (["--quiet"] if self.rng.random() < 0.3 else []), kill)
        if rc == 0 or rc is None:
            m.known |= self.remote_known
            self.remote_known |= m.known
        if rc == 77 and self.encrypt and m.left:
            self.counts["sync_77"] = self.counts.get("sync_77", 0) + 1
            return
        if rc not in (0, None):
            self.problem(f"{m.name}: sync exited {rc}: {err.strip()[:800]}")

    def op_concurrent(self, m, kill):
        """A sync (cron's) runs while the member changes something, and another member syncs too."""
        other = self.rng.choice([x for x in self.members if x is not m])
        p1 = self.start(m, ["sync", "--quiet"])
        p2 = self.start(other, ["sync", "--quiet"]) if self.rng.random() < 0.5 else None
        if self.rng.random() < 0.5:
            self.op_edit(m, None)
        else:
            self.op_add(m, None)
        for who, p, args in ((m, p1, ["sync", "--quiet"]), (other, p2, ["sync", "--quiet"])):
            if p is None:
                continue
            self.runs -= 1
            rc, out, err = self.run(who, args, started=p)
            if rc == 0:
                who.known |= self.remote_known
                self.remote_known |= who.known
            elif rc != 75:
                self.problem(f"{who.name}: concurrent sync exited {rc}: {err.strip()[:800]}")
            else:
                # Lost the lock or the push race: it may still have pushed or fetched part.
                who.known |= self.remote_known
                self.remote_known |= who.known
        # The two syncs ran at once, in either order: each may have received the other's.
        if p2 is not None:
            m.known |= self.remote_known
            other.known |= self.remote_known

    def op_offline_sync(self, m, kill):
        away = self.remote + ".away"
        os.rename(self.remote, away)
        try:
            rc, out, err = self.run(m, ["sync"], kill)
        finally:
            os.rename(away, self.remote)
        if rc is not None and rc != 75:
            self.problem(f"{m.name}: sync with the remote gone exited {rc} (want 75): {err.strip()[:500]}")

    def op_read(self, m, kill):
        args = self.rng.choice([["list"], ["list", "--all", "--json"], ["status"], ["agenda"], ["chores"],
                                ["log", "-n", "5"], ["changes"], ["conflicts"], ["undo", "--list"]])
        tid = self.pick_task(m)
        if tid and self.rng.random() < 0.3:
            args = ["show", self.short(tid)]
        self.run(m, args, kill)

    # -- the run ---------------------------------------------------------------------------------

    def setup(self):
        subprocess.run(["git", "init", "-q", "--bare", self.remote], check=True)
        names = ["Alice", "Bob", "Carol"]
        self.members = [Member(self, n) for n in names]
        a = self.members[0]
        rc, out, err = self.run(a, ["init", "--name", "Alice", "--email", "alice@example.org", "--remote", self.remote]
                                + (["--encrypt"] if self.encrypt else []))
        if rc != 0:
            raise Failure(f"init: {rc} {err}")
        self.op_add(a, None)
        if self.encrypt:
            for m in self.members:
                rc, out, err = self.run(m, ["key"])
                if rc != 0 or not out.startswith("age1"):
                    raise Failure(f"key: {rc} {out} {err}")
                m.key = out.strip()
                if m is not a:
                    rc, out, err = self.run(a, ["member", "add", m.name, "--key", m.key])
                    if rc != 0:
                        raise Failure(f"member add --key: {rc} {err}")
        self.op_sync(a, None)
        for m in self.members[1:]:
            rc, out, err = self.run(m, ["clone", self.remote, "--name", m.name, "--email", m.name.lower() + "@example.org"])
            if rc != 0:
                raise Failure(f"clone: {rc} {err}")
            m.known |= self.remote_known
        for m in self.members:
            m.skew = self.rng.choice([0, 0, 1, -1, 5, -5, 24, -24, 72, -72]) * HOUR + self.rng.randint(-3_600_000, 3_600_000)

    def step(self):
        self.now += self.rng.randint(1, 90) * 60_000
        m = self.rng.choice(self.members)
        if self.rng.random() < 0.03:
            m.skew = self.rng.choice([0, 1, -1, 5, -5, 24, -24, 72, -72]) * HOUR
        if self.extreme and self.rng.random() < 0.01:
            # A clock years off: before 2000, or near the year 9999.
            m.skew = self.rng.choice([-27 * 365 * DAY, 8073 * 365 * DAY, 30 * 365 * DAY])
        kill = None
        if self.rng.random() < 0.08:
            kill = self.rng.uniform(0.0, 0.15) if self.rng.random() < 0.7 else self.rng.uniform(0.0, 0.6)
        ops = [(self.op_add, 20), (self.op_edit, 30), (self.op_state, 12), (self.op_undo, 3),
               (self.op_restore_conflict, 3), (self.op_roster, 3), (self.op_sync, 15), (self.op_offline_sync, 2), (self.op_concurrent, 4), (self.op_read, 5)]
        op = self.rng.choices([o for o, _ in ops], [w for _, w in ops])[0]
        self.counts[op.__name__] = self.counts.get(op.__name__, 0) + 1
        op(m, kill)
        if kill is not None:
            # The next command must recover whatever the killed one left.
            rc, out, err = self.run(m, ["list", "--all"])
            if rc != 0:
                self.problem(f"{m.name}: list after a kill exited {rc}: {err[:500]}")
            self.fsck(m.repo, m.name, status=False)

    def settle(self):
        for rnd in range(3):
            for m in self.members:
                for _ in range(2):
                    self.now += 60_000
                    rc, out, err = self.run(m, ["sync"])
                    if rc == 77 and self.encrypt and m.left:
                        m.out = True
                        self.counts["settle_77"] = self.counts.get("settle_77", 0) + 1
                        continue
                    if rc != 0:
                        self.problem(f"{m.name}: settling sync exited {rc}: {err.strip()[:800]}")
                    m.out = False
                    m.known |= self.remote_known
                    self.remote_known |= m.known
        trees = {}
        for m in self.members:
            if m.out:
                continue
            trees[m.name] = self.git(m.repo, "rev-parse", "main^{tree}").stdout.strip()
        if not self.encrypt:
            # An encrypted remote's tree is ciphertext: the members' trees say what it carries.
            trees["remote"] = self.git(self.remote, "rev-parse", "main^{tree}").stdout.strip()
        if len(set(trees.values())) != 1:
            self.problem(f"trees differ after settling: {trees}")
        for m in self.members:
            self.fsck(m.repo, m.name)
        self.fsck(self.remote, "remote")

    def final_state(self):
        m = next(x for x in self.members if not x.out)
        files = self.git(m.repo, "ls-tree", "-r", "--name-only", "main", "tasks").stdout.split()
        state = {}
        for f in files:
            raw = self.git(m.repo, "show", "main:" + f).stdout
            try:
                t = json.loads(raw)
            except Exception:
                self.problem(f"final {f} is not JSON: {raw[:200]!r}")
                continue
            state[t["id"]] = t
        return state

    def check_writes(self, state):
        by_key = {}
        for w in self.writes:
            by_key.setdefault((w["task"], w["field"]), []).append(w)
        wild = [w for w in self.writes if w["wild"]]

        def current(t, field):
            if field == "exists":
                return True
            if field.startswith("tag:"):
                tag = field[4:]
                return tag in (t.get("tags") or [])
            if field.startswith("item:"):
                entry = (t.get("items") or {}).get(field[5:])
                return entry[0] if entry else None
            return t.get(field)

        def logged(t, field, value):
            for e in t.get("conflicts") or []:
                lost = (e.get("lost") or {}).get("value", "\0")
                if field.startswith("item:") and isinstance(lost, list) and lost:
                    lost = lost[0]
                if e.get("field") == field and lost == value:
                    return True
                if field.startswith("tag:") and e.get("field") == field:
                    return True
                if e.get("kind") in ("invalid-file",):
                    return True
            return False

        # A member whose keys were taken away cannot send: what they never sent is exempt.
        out = {m.name for m in self.members if m.out}
        for key in list(by_key):
            by_key[key] = [w for w in by_key[key] if w["member"] not in out or w["serial"] in self.remote_known]
        for (task, field), ws in by_key.items():
            if task is None or field == "*":
                continue
            t = state.get(task)
            if t is None:
                if any(w["acked"] for w in ws):
                    self.problem(f"task {task} ({self.tasks.get(task)}) is gone from the final tree")
                continue
            if field == "exists":
                continue
            final = current(t, field)
            for w in ws:
                if not w["acked"]:
                    continue
                same = [x for x in ws if x["value"] == w["value"]]
                ok = final == w["value"] or logged(t, field, w["value"])
                if not ok:
                    for x in same:
                        over = [y for y in ws + wild if y is not x and (y["task"] in (None, task))
                                and x["serial"] in y["seen"]]
                        if over:
                            ok = True
                            break
                if not ok:
                    self.problem(
                        f"write lost: {w['member']} set {field} of {task[:8]} to {w['value']!r} (write #{w['serial']}, "
                        f"clock {w['now']}); final {final!r}; other writes: "
                        + ", ".join(f"#{x['serial']} {x['member']} {x['value']!r}" for x in ws if x is not w)
                        + f"; log: {[(e.get('field'), (e.get('lost') or {}).get('value')) for e in t.get('conflicts') or []]}")

    def go(self):
        self.setup()
        for _ in range(self.ops):
            self.step()
        self.settle()
        self.check_writes(self.final_state())


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            seeds += list(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--ops", type=int, default=150)
    ap.add_argument("--todo", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.build/debug/todo"))
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--extreme", action="store_true", help="now and then a clock decades off")
    ap.add_argument("--encrypt", action="store_true", help="an encrypted remote (docs/ENCRYPTION.md)")
    a = ap.parse_args()
    todo = os.path.abspath(a.todo)
    failed = []
    for seed in parse_seeds(a.seeds):
        root = tempfile.mkdtemp(prefix=f"todo-chaos-{seed}-")
        w = World(seed, todo, a.ops, a.trace, root)
        w.extreme = a.extreme
        w.encrypt = a.encrypt
        start = time.time()
        try:
            w.go()
        except Failure as e:
            w.problem(str(e))
        took = time.time() - start
        print(f"seed {seed}: {w.runs} commands, {w.killed} killed, ops {dict(sorted(w.counts.items()))}, "
              f"{len(w.problems)} problems, {took:.0f}s", flush=True)
        for p in w.problems:
            print("  " + p)
        if w.problems:
            failed.append(seed)
        if a.keep or w.problems:
            print(f"  kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    if failed:
        print(f"failing seeds: {failed}; replay with --seeds N --trace")
        sys.exit(1)


if __name__ == "__main__":
    main()
