#!/usr/bin/env python3
"""`todo calendar` in a household of N tasks of which a tenth are chores (with rotations, some
with a time of day), over the default 8 weeks: to standard output, with --out, for one member;
and `todo remind` for the household's four members (--dry-run, which computes every reminder and
sends none, so that each run does the same work; and one real run to standard output, whose
state is removed before each run).

    python3 scripts/bench/calendar.py --todo .build-release/release/todo [--size 10000] [--runs 7]

Prints a markdown table of medians in milliseconds (wall-clock and CPU time) and the feed's
size. The clock is fixed at 2026-06-01 09:00 UTC, the household's zone is Europe/Paris."""
import argparse, json, os, random, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from bench import generate_tasks  # noqa: E402
from chores import medians, timed  # noqa: E402

RULES = ["day", "tue", "mon,thu", "3d", "week", "2w", "weekday", "month", "15th"]
MEMBERS = ["Alice", "Bob", "Carol", "Dan"]
NOW = "1780304400000"  # 2026-06-01T09:00:00Z


def household(size, rng):
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--todo", required=True)
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(21)
    root = tempfile.mkdtemp(prefix="todo-bench-calendar-")
    home = os.path.join(root, "home")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TODO_")}
    env.update(TODO_HOME=home, XDG_STATE_HOME=home + "-state", NO_COLOR="1", TZ="UTC", TODO_NOW=NOW)
    import subprocess
    subprocess.run([args.todo, "init", "--name", "Alice", "--email", "alice@example.org", "--timezone", "Europe/Paris"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    data = os.path.join(root, "tasks.json")
    with open(data, "w") as f:
        json.dump(household(args.size, rng), f)
    subprocess.run([args.todo, "import", data], env=env, check=True, stdout=subprocess.DEVNULL)
    out = os.path.join(root, "feed.ics")
    timed([args.todo, "list"], env)  # the list cache is built once
    rows = []
    for label, cmd in [
        ("`todo calendar` (stdout)", [args.todo, "calendar"]),
        ("`todo calendar --out FILE`", [args.todo, "calendar", "--out", out]),
        ("`todo calendar --member Bob --alarm 30m`", [args.todo, "calendar", "--member", "Bob", "--alarm", "30m"]),
        ("`todo remind --dry-run` (4 members)", [args.todo, "remind", "--dry-run"]),
        ("`todo remind --via stdout` (4 members, state removed first)",
         ["sh", "-c", 'rm -f "$XDG_STATE_HOME/todo/reminders/home.state"; exec "$0" remind --via stdout', args.todo]),
    ]:
        timed(cmd, env)
        wall, cpu = medians([timed(cmd, env) for _ in range(args.runs)])
        rows.append((label, wall, cpu))
    feed = open(out, "rb").read()
    events = feed.count(b"BEGIN:VEVENT")
    print(f"{args.size:,} tasks, {args.size // 10:,} chores, 8 weeks: feed of {events:,} events, {len(feed) / 1e6:.1f} MB")
    print()
    print("| command | wall ms | CPU ms |")
    print("|---|---|---|")
    for label, wall, cpu in rows:
        print(f"| {label} | {wall:.1f} | {cpu:.1f} |")


main()
