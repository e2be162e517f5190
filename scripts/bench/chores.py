#!/usr/bin/env python3
"""`todo list` and `todo done` in a household of N tasks of which a tenth are chores or
checklists, beside the same household with plain tasks only (same run, same binary).

    python3 scripts/bench/chores.py --todo .build-release/release/todo [--size 10000] [--runs 7]

Prints a markdown table of medians in milliseconds: wall-clock time and CPU time."""
import argparse, json, os, random, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import generate_tasks, medians, short_ids, timed  # noqa: E402

RULES = ["tue", "mon,thu", "3d", "week", "2w", "weekday", "month", "1st", "15th"]
MEMBERS = ["Alice", "Bob", "Carol", "Dan"]


def with_chores(tasks, rng):
    """Every tenth task becomes a chore (with a rotation and some completions) or a checklist."""
    for n, t in enumerate(tasks):
        if n % 10:
            continue
        if n % 20 == 0:
            t["repeat"] = {"every": rng.choice(RULES), "from": "2026-%02d-%02d" % (rng.randint(1, 10), rng.randint(1, 28))}
            t.pop("due", None)
            if rng.random() < 0.7:
                t["rotation"] = rng.sample(MEMBERS, rng.randint(2, 4))
        else:
            t["items"] = {"%016x" % rng.getrandbits(64): ["open", f"item {k}", "1763800000000.0.a1 Alice", "1763800000000.0.a1 Alice"]
                          for k in range(rng.randint(2, 12))}
    return tasks


def measure(todo, root, name, tasks, runs, rng):
    home = os.path.join(root, name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TODO_")}
    env.update(TODO_HOME=home, XDG_STATE_HOME=home + "-state", NO_COLOR="1", TZ="UTC")
    subprocess.run([todo, "init", "--name", "Alice", "--email", "alice@example.org"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    data = os.path.join(root, name + ".json")
    with open(data, "w") as f:
        json.dump(tasks, f)
    subprocess.run([todo, "import", data], env=env, check=True, stdout=subprocess.DEVNULL)
    short = short_ids([t["id"] for t in tasks])
    timed([todo, "list"], env)  # the cache is built once
    lst = [timed([todo, "list"], env) for _ in range(runs)]
    # `done` on chores (their current occurrence) where there are chores, else on plain tasks.
    chores = [t["id"] for t in tasks if "repeat" in t] or [t["id"] for t in tasks]
    targets = rng.sample(chores, runs)
    done = [timed([todo, "done", short[i]], env) for i in targets]
    after = [timed([todo, "list"], env) for _ in range(runs)]
    return medians(lst), medians(done), medians(after)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--todo", required=True)
    p.add_argument("--size", type=int, default=10000)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--seed", type=int, default=12)
    a = p.parse_args()
    root = tempfile.mkdtemp(prefix="todo-chores-bench.")
    try:
        plain = generate_tasks(a.size, random.Random(a.seed))
        mixed = with_chores(generate_tasks(a.size, random.Random(a.seed)), random.Random(a.seed))
        rows = [("plain tasks", measure(a.todo, root, "plain", plain, a.runs, random.Random(1))),
                ("a tenth chores or checklists", measure(a.todo, root, "mixed", mixed, a.runs, random.Random(1)))]
        print(f"| household of {a.size} (median wall / CPU) | `todo list` (cache warm) | `todo done` | `todo list` again |")
        print("|---|---|---|---|")
        for name, cells in rows:
            print(f"| {name} | " + " | ".join(f"{w:.1f} / {c:.1f} ms" for w, c in cells) + " |")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
