"""What the benchmark scripts share: the generated households (tasks shaped like `todo list
--json` output, for `todo import`), the short ids a person would type, and the timing of one
command. bench.py, chores.py and calendar_feed.py each import this module and none imports
another, so each can run on its own (`python3 scripts/bench/chores.py ...`) and bench.py can
import the other two at the top. Standard library only."""
import resource
import statistics
import subprocess
import time

WORDS = ["milk", "bread", "plumber", "bike", "garden", "taxes", "dentist", "kitchen", "car",
         "laundry", "school", "birthday", "lamp", "gutter", "passport", "cat", "boiler", "window"]
VERBS = ["Buy", "Call", "Fix", "Clean", "Book", "Pay", "Order", "Paint", "Check", "Return"]
TAGS = ["home", "garden", "groceries", "bills", "kids", "car", "health", "school"]
MEMBERS = ["Alice", "Bob", "Carol", "Dan"]


def generate_tasks(count, rng):
    """A JSON array for `todo import`, shaped like `todo list --json` output."""
    tasks = []
    for i in range(count):
        task = {
            "id": "%032x" % rng.getrandbits(128),
            "title": f"{rng.choice(VERBS)} the {rng.choice(WORDS)} ({i})",
            "status": "open",
            "priority": rng.choice(["low", "normal", "normal", "high"]),
        }
        if rng.random() < 0.5:
            task["due"] = "2026-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
        if rng.random() < 0.4:
            task["assignee"] = rng.choice(MEMBERS)
        if rng.random() < 0.6:
            task["tags"] = sorted(rng.sample(TAGS, rng.randint(1, 2)))
        if rng.random() < 0.2:
            task["notes"] = "Remember to " + " ".join(rng.choice(WORDS) for _ in range(6))
        tasks.append(task)
    return tasks


def short_ids(ids, least=6):
    """A unique prefix of each id, as a person would type it: the shortest unique one, but at
    least `least` characters, so that the tasks `todo add` creates during the benchmark do
    not make a prefix ambiguous (`todo list` shows at least 4)."""
    ordered = sorted(ids)
    result = {}
    for i, full in enumerate(ordered):
        need = least
        for j in (i - 1, i + 1):
            if 0 <= j < len(ordered):
                other = ordered[j]
                common = 0
                while common < len(full) and full[common] == other[common]:
                    common += 1
                need = max(need, common + 1)
        result[full] = full[:need]
    return result


def timed(cmd, env):
    """(wall ms, CPU ms): CPU time (user + system) is what a loaded machine distorts least."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def medians(samples):
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def percentile(values, p):
    """The value at percentile `p` (0 to 100) of `values`, nearest rank; None when empty."""
    ordered = sorted(values)
    if not ordered:
        return None
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]
