#!/usr/bin/env python3
"""How long a change on the web page waits while the server syncs with a slow remote.

docs/SERVE.md, "Background sync": a sync takes the household's lock only to merge, never during
the transfer, so a POST waits for the lock at most about 100 ms. This measures it: a household
of --tasks tasks whose remote is a bare repository served by `git daemon` behind a proxy that
holds every chunk the server sends for --delay-ms (a slow NAS or a far forge), another member
(Bob) who pushes --changes changes before each round, and --changes local changes of Alice's.
In each of --rounds rounds, one session presses "Sync now" (POST /sync, answered when the sync
is over) while another sends POST /t/<id>/done, one after the other, until that sync is over.
The same POSTs with no sync running give the baseline. Every POST must answer 303 and commit.

    python3 scripts/bench-serve-lock.py --todo .build-release/release/todo \\
        --serve .build-release/release/todo-serve [--tasks 10000] [--changes 50] [--rounds 5]
        [--delay-ms 200] [--json FILE]

Prints a markdown table; --json writes the figures. Standard library only; every server it
starts binds 127.0.0.1 and is stopped at the end. Exit 1 when a check failed.
"""

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "servers"))
sys.path.insert(0, os.path.join(HERE, "bench"))
from serve_client import Failed, Server, Session, git, invite, member_env, run  # noqa: E402
from bench import generate_tasks  # noqa: E402


class SlowProxy:
    """Forwards 127.0.0.1:port to target_port; each chunk the target sends waits `delay` s."""

    def __init__(self, target_port, delay):
        self.target_port, self.delay = target_port, delay
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.stopped = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.stopped:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target_port), timeout=120)
            threading.Thread(target=self.pipe, args=(client, server, 0), daemon=True).start()
            threading.Thread(target=self.pipe, args=(server, client, self.delay), daemon=True).start()

    @staticmethod
    def pipe(source, sink, delay):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if delay:
                    time.sleep(delay)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def stop(self):
        self.stopped = True
        self.listener.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values, p):
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def summary(values):
    return {"n": len(values), "p50": percentile(values, 50), "p99": percentile(values, 99), "max": max(values)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--todo", required=True)
    parser.add_argument("--serve", required=True)
    parser.add_argument("--tasks", type=int, default=10000)
    parser.add_argument("--changes", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--delay-ms", type=float, default=200)
    parser.add_argument("--json")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    todo, serve = os.path.abspath(args.todo), os.path.abspath(args.serve)
    tmp = tempfile.mkdtemp(prefix="todo-bench-lock.")
    alice, bob = member_env(tmp, "Alice"), member_env(tmp, "Bob")
    daemon = proxy = server = None
    failed, figures = [], {"tasks": args.tasks, "changes": args.changes, "delay_ms": args.delay_ms}
    try:
        remote_root = os.path.join(tmp, "remotes")
        os.makedirs(remote_root)
        run(["git", "init", "-q", "--bare", "-b", "main", os.path.join(remote_root, "home.git")], alice)
        port = free_port()
        daemon = subprocess.Popen(
            ["git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack", f"--base-path={remote_root}",
             "--listen=127.0.0.1", f"--port={port}", remote_root],
            env=alice, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)  # git daemon is starting; bounded by the loop
        proxy = SlowProxy(port, args.delay_ms / 1000)
        fast, slow = f"git://127.0.0.1:{port}/home.git", f"git://127.0.0.1:{proxy.port}/home.git"

        run([todo, "init", "--name", "Alice", "--email", "alice@example.org"], alice)
        tasks = generate_tasks(args.tasks, random.Random(f"lock-{args.tasks}"))
        data = os.path.join(tmp, "tasks.json")
        with open(data, "w") as f:
            json.dump(tasks, f)
        run([todo, "import", data], alice, timeout=600)
        run([todo, "remote", "set", fast], alice)
        run([todo, "sync"], alice, timeout=600)
        run([todo, "clone", fast], bob, timeout=600)
        run([todo, "remote", "set", slow], alice)
        ids = [t["id"] for t in tasks]
        rng = random.Random("lock")
        rng.shuffle(ids)
        print(f"bench-serve-lock: {args.tasks:,} tasks, remote behind a {args.delay_ms:g} ms proxy",
              file=sys.stderr, flush=True)

        env = dict(alice, TODO_SERVE_TODO=todo)
        server = Server(serve, env, ["--sync-every", "0"])
        syncer, changer = Session(server.port, source="127.20.0.1"), Session(server.port, source="127.21.0.1")
        for s in (syncer, changer):
            s.sign_in(invite(serve, env, "Alice", server.base))
            if s.get("/sync").status != 200:
                raise Failed("GET /sync did not answer 200 after signing in")
        pool = iter(ids[: len(ids) // 2])  # the tasks the page completes; the edits take others
        posts = 0

        def done_once(source_cycle):
            nonlocal posts
            task = next(pool)
            # A fresh source address every 25 POSTs: the per-client limit is for one phone.
            if posts % 25 == 0:
                changer.connect(f"127.21.{source_cycle}.{posts // 25 % 250 + 1}")
            t0 = time.perf_counter()
            r = changer.post(f"/t/{task}/done")
            ms = (time.perf_counter() - t0) * 1000
            posts += 1
            if r.status != 303:
                raise Failed(f"POST /t/{task}/done answered {r.status}")
            return ms

        idle = [done_once(1) for _ in range(40)]
        during, sync_ms = [], []
        for n in range(args.rounds):
            for i in range(args.changes):  # Bob's changes, on the remote before the round
                run([todo, "edit", ids[-1 - (n * args.changes + i) % (len(ids) // 4)], "--title", f"Bob {n}.{i}"], bob)
            run([todo, "sync"], bob, timeout=600)
            for i in range(args.changes):  # Alice's own, made with the CLI
                run([todo, "edit", ids[len(ids) // 2 + (n * args.changes + i) % (len(ids) // 4)], "--note", f"Alice {n}.{i}"], alice)
            result = {}

            def press():
                syncer.connect(f"127.20.{n + 1}.1")
                t0 = time.perf_counter()
                result["status"] = syncer.post("/sync").status
                result["ms"] = (time.perf_counter() - t0) * 1000

            presser = threading.Thread(target=press)
            presser.start()
            while presser.is_alive():
                during.append(done_once(2 + n))
            presser.join()
            if result.get("status") != 303:
                raise Failed(f"POST /sync answered {result.get('status')}")
            sync_ms.append(result["ms"])
        status = run([todo, "status"], alice)
        figures["status_tail"] = status.strip().splitlines()[-3:]
        figures["idle"], figures["during"] = summary(idle), summary(during)
        figures["sync_ms"] = statistics.median(sync_ms)
        figures["lock_wait_p99_ms"] = figures["during"]["p99"] - figures["idle"]["p50"]
        commits = int(git(alice, "rev-list", "--count", "--no-merges", "--author=Alice", "main"))
        figures["alice_commits"] = commits
        run(["git", "-C", os.path.join(alice["TODO_HOME"], "home"), "fsck", "--no-progress"], alice, timeout=600)
    except Failed as e:
        failed.append(str(e))
    finally:
        if server:
            code = server.stop(grace=90)
            if code != 0:
                failed.append(f"todo-serve exited {code} on SIGTERM")
        if proxy:
            proxy.stop()
        if daemon:
            daemon.terminate()
            daemon.wait(timeout=10)
        if args.keep:
            print(f"bench-serve-lock: kept {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    figures["failed"] = failed
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)
    if "during" in figures:
        i, d = figures["idle"], figures["during"]
        print("| POST /t/<id>/done | n | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|")
        print(f"| no sync running | {i['n']} | {i['p50']:.1f} | {i['p99']:.1f} | {i['max']:.1f} |")
        print(f"| while \"Sync now\" runs against the slow remote ({args.rounds} syncs, median "
              f"{figures['sync_ms']:.0f} ms each) | {d['n']} | {d['p50']:.1f} | {d['p99']:.1f} | {d['max']:.1f} |")
        print(f"\nWait attributable to the sync (p99 during − p50 idle): {figures['lock_wait_p99_ms']:.0f} ms "
              f"(target ≤ 100 ms: {'met' if figures['lock_wait_p99_ms'] <= 100 else 'MISSED'})")
    for f in failed:
        print(f"bench-serve-lock: FAILED: {f}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
