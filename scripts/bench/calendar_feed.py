#!/usr/bin/env python3
"""`todo calendar` in a household of N tasks of which a tenth are chores (with rotations, some
with a time of day, some with an alarm of their own), over the default 8 weeks: to standard
output, with --out, for one member; and `todo remind` for the household's four members
(--dry-run, which computes every reminder and sends none, so that each run does the same work;
and one real run to standard output, whose state is removed before each run).

    python3 scripts/bench/calendar_feed.py --todo .build-release/release/todo [--size 10000] [--runs 7]

Prints a markdown table of medians in milliseconds (wall-clock and CPU time) and the feed's
size. The clock is fixed at 2026-06-01 09:00 UTC, the household's zone is Europe/Paris.
`make bench` runs the same as its `calendar` section (scripts/bench/bench.py imports this file;
it is not named calendar.py, which would hide Python's own `calendar` module)."""
import argparse, json, os, random, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import generate_tasks, medians, timed  # noqa: E402

RULES = ["day", "tue", "mon,thu", "3d", "week", "2w", "weekday", "month", "15th"]
MEMBERS = ["Alice", "Bob", "Carol", "Dan"]
ALARMS = ["30m", "1h", "1d", "07:30", "08:00"]
NOW = "1780304400000"  # 2026-06-01T09:00:00Z


def household(size, rng):
    """`size` tasks (scripts/bench/bench.py's), every tenth a chore with a rotation."""
    tasks = generate_tasks(size, rng)
    for n, t in enumerate(tasks):
        if n % 10:
            continue
        t["repeat"] = {"every": rng.choice(RULES), "from": "2026-%02d-%02d" % (rng.randint(1, 5), rng.randint(1, 28))}
        t.pop("due", None)
        if rng.random() < 0.3:
            t["due"] = "2026-01-01T%02d:%02d" % (rng.randint(6, 21), rng.choice([0, 15, 30, 45]))
        t["rotation"] = rng.sample(MEMBERS, rng.randint(2, 4))
    return tasks


def make_household(todo, home, data, size, rng, env_base):
    """Creates the household in `home` (TODO_HOME) from `size` tasks written to `data`; returns
    the environment its commands run in (the fixed clock, the machine on UTC) and the tasks."""
    env = dict(env_base)
    env.update(TODO_HOME=home, XDG_STATE_HOME=home + "-state", NO_COLOR="1", TZ="UTC", TODO_NOW=NOW)
    subprocess.run([todo, "init", "--name", "Alice", "--email", "alice@example.org", "--timezone", "Europe/Paris"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    tasks = household(size, rng)
    with open(data, "w") as f:
        json.dump(tasks, f)
    subprocess.run([todo, "import", data], env=env, check=True, stdout=subprocess.DEVNULL)
    return env, tasks


def give_alarms(todo, env, tasks, count, rng):
    """Gives `count` chores an alarm of their own (`todo edit --alarm`), one commit each."""
    ids = [t["id"] for t in tasks if "repeat" in t]
    for task_id in rng.sample(ids, min(count, len(ids))):
        subprocess.run([todo, "edit", task_id, "--alarm", rng.choice(ALARMS)], env=env, check=True,
                       stdout=subprocess.DEVNULL)


def commands(todo, out):
    """(label, command) of each figure; `out` is the --out file."""
    return [
        ("`todo calendar` (stdout)", [todo, "calendar"]),
        ("`todo calendar --out FILE`", [todo, "calendar", "--out", out]),
        ("`todo calendar --member Bob --alarm 30m`", [todo, "calendar", "--member", "Bob", "--alarm", "30m"]),
        ("`todo remind --dry-run` (4 members)", [todo, "remind", "--dry-run"]),
        ("`todo remind --via stdout` (4 members, state removed first)",
         ["sh", "-c", 'rm -f "$XDG_STATE_HOME/todo/reminders/home.state"; exec "$0" remind --via stdout', todo]),
    ]


def measure(todo, root, size, runs, rng, env_base, alarms=20):
    """(rows of (label, wall ms, CPU ms), events in the feed, feed bytes) for a household of
    `size` tasks made under `root`."""
    env, tasks = make_household(todo, os.path.join(root, "home"), os.path.join(root, "tasks.json"), size, rng, env_base)
    give_alarms(todo, env, tasks, alarms, rng)
    out = os.path.join(root, "feed.ics")
    timed([todo, "list"], env)  # the list cache is built once
    rows = []
    for label, cmd in commands(todo, out):
        timed(cmd, env)
        wall, cpu = medians([timed(cmd, env) for _ in range(runs)])
        rows.append((label, wall, cpu))
    with open(out, "rb") as f:
        feed = f.read()
    return rows, feed.count(b"BEGIN:VEVENT"), len(feed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--todo", required=True)
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="todo-bench-calendar-")
    try:
        env_base = {k: v for k, v in os.environ.items() if not k.startswith("TODO_")}
        rows, events, size = measure(args.todo, root, args.size, args.runs, random.Random(21), env_base)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{args.size:,} tasks, {args.size // 10:,} chores, 8 weeks: feed of {events:,} events, {size / 1e6:.1f} MB")
    print()
    print("| command | wall ms | CPU ms |")
    print("|---|---|---|")
    for label, wall, cpu in rows:
        print(f"| {label} | {wall:.1f} | {cpu:.1f} |")


if __name__ == "__main__":
    main()
