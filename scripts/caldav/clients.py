#!/usr/bin/env python3
"""Real CalDAV clients against a running `todo-serve`: python-caldav, then vdirsyncer with
todoman, each doing what a phone's task app does, and `todo` and git judging the result.

    VENV/bin/python scripts/caldav/clients.py [--todo .build/debug/todo]
        [--serve .build/debug/todo-serve] [--venv ~/.cache/todo/caldav-venv] [--keep]

The household of scripts/caldav/common.py (Ann and Bob, the chore "Dishes" in turns, the
checklist "Shopping", a task each), `todo-serve` on a free port of 127.0.0.1 and an app password
of Ann's. With python-caldav, from the bare address: the collections are Mine, Household and
Shopping; Mine holds Ann's task and Ann's turns of the chore; completing today's turn credits
Ann (`todo chores --json`); a new to-do is a task of Ann's, its new summary its title, deleting
it deletes the task; ticking "milk" checks the item; after a sync token, a `todo edit` is exactly
what sync-collection returns. With vdirsyncer and todoman: Mine synced to a folder of .ics
files, todoman raises a task's priority while the CLI renames it, two syncs, and both edits are
in the file and in `todo show`. What one device stored is served so that every app reads it:
a title with a right-to-left override and a task whose stored alarms include one that cannot be
placed in time (a hand edit) are fetched by python-caldav and parsed by `icalendar` (the
override shown as `\\u{202e}`, only the placeable alarm, its trigger a duration), listed by
todoman after a vdirsyncer sync, and todoman's edit of the first sent back leaves its stored
title as it was (the override itself, never the escape). Then `git log` shows the phone's
commits as Ann's and `git fsck --strict` is clean; the server exits 0 on SIGTERM.

Every command and request has a timeout and the run a deadline (--seconds). One line per step;
exit 0 when every check passed, 1 with what failed.
"""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import ANNS, Failed, Household, TodoServe, deadline, parse_common, run  # noqa: E402

NAME = "caldav-clients"
HTTP_TIMEOUT = 30  # seconds any one request may take


def say(message):
    print(f"{NAME}: {message}", flush=True)


def check(condition, message):
    if not condition:
        raise Failed(message)


def summary(obj):
    return str(obj.icalendar_component.get("summary", ""))


def uid(obj):
    return str(obj.icalendar_component.get("uid", ""))


def by_title(household, title, *extra):
    found = [t for t in household.list(*extra) if t["title"] == title]
    check(len(found) == 1, f"`todo list --json {' '.join(extra)}` has {len(found)} tasks titled {title!r}, not 1")
    return found[0]


def python_caldav(h, server, creds):
    import caldav  # the virtual environment's (scripts/deps.sh --test)

    client = caldav.DAVClient(url=server.base, username=creds["user"], password=creds["password"],
                              timeout=HTTP_TIMEOUT)
    principal = client.principal()
    calendars = {c.get_display_name(): c for c in principal.calendars()}
    check(set(calendars) == {"Mine", "Household", "Shopping"},
          f"discovery from {server.base} found the collections {sorted(calendars)}, "
          "not Mine, Household and Shopping")
    say(f"discovered from {server.base}: {', '.join(sorted(calendars))}")
    mine, shopping = calendars["Mine"], calendars["Shopping"]

    today = h.chores()[h.chore]["next"].replace("-", "")
    todos = mine.todos()
    uids = {uid(t): t for t in todos}
    check(h.anns in uids, f"Mine lacks Ann's task {h.anns} ({ANNS!r}); it has {sorted(uids)}")
    check(h.bobs not in uids, f"Mine holds Bob's task {h.bobs}")
    turns = sorted(u for u in uids if u.startswith(h.chore + "-"))
    check(f"{h.chore}-{today}" in turns, f"Mine lacks today's turn of the chore, {h.chore}-{today}; "
          f"it has the turns {turns}")
    say(f"Mine holds Ann's task and {len(turns)} turns of the chore (today {today})")

    # Today's turn completed on the phone: credited to Ann for today.
    uids[f"{h.chore}-{today}"].complete()
    iso = f"{today[:4]}-{today[4:6]}-{today[6:]}"
    credits = h.chores()[h.chore].get("completions", {})
    check(credits.get("Ann", {}).get("all") == 1,
          f"after completing {h.chore}-{today}, `todo chores --json` credits Ann with {credits}, not one")
    done = [c for c in h.show(h.chore).get("completions", {}).values() if c[:3] == ["done", "Ann", iso]]
    check(len(done) == 1, f"after completing {h.chore}-{today}, `todo show --json` has no completion "
          f"by Ann for {iso}: {h.show(h.chore).get('completions')}")
    say(f"completed today's turn: `todo chores --json` and `todo show` credit Ann for {iso}")

    # A new to-do from the phone: a task of Ann's; renamed; deleted.
    title = "Pay the window cleaner"
    due = datetime.date.today() + datetime.timedelta(days=3)
    new = mine.save_todo(summary=title, due=due)
    task = by_title(h, title)
    check(task["assignee"] == "Ann", f"the new to-do's task is assigned to {task['assignee']!r}, not Ann")
    check(task["due"] == due.isoformat(), f"the new to-do's task is due {task['due']!r}, not {due.isoformat()}")
    say(f"save_todo made task {task['id'][:8]} for Ann, due {task['due']}")
    renamed = "Pay the window cleaner 40 euros"
    new.icalendar_component["summary"] = renamed
    new.save()
    shown = h.show(task["id"])
    check(shown["title"] == renamed, f"after the new summary was saved, `todo show` has the title {shown['title']!r}")
    say(f"new summary saved: `todo show` has the title {renamed!r}")
    new.delete()
    shown = h.show(task["id"])
    check(shown.get("deleted") is True, f"after DELETE of {new.url}, `todo show --json` has deleted={shown.get('deleted')!r}")
    check(all(t["id"] != task["id"] for t in h.list()), "the deleted task is still in `todo list --json`")
    say("deleted on the phone: the task is deleted (restorable)")

    # A checklist item ticked.
    items = {summary(t): t for t in shopping.todos()}
    check(set(items) >= {"milk", "eggs"}, f"Shopping holds {sorted(items)}, not milk and eggs")
    items["milk"].complete()
    shown = h.show(h.checklist)
    states = {v[1]: v[0] for v in shown.get("items", {}).values()}
    check(states.get("milk") not in (None, "open"), f"after ticking milk, `todo show` has the items {states}")
    check(states.get("eggs") == "open", f"ticking milk changed eggs: {states}")
    say(f"ticked milk in Shopping: `todo show` has {states}")

    # sync-collection: exactly what changed since the token.
    token = mine.objects_by_sync_token(load_objects=False).sync_token
    check(token, "sync-collection gave no sync token")
    retitled = "Call the plumber about the boiler"
    h.todo("edit", h.anns, "--title", retitled)
    changed = list(mine.objects_by_sync_token(sync_token=token, load_objects=True))
    got = [(uid(o), summary(o)) for o in changed]
    check(got == [(h.anns, retitled)], f"after `todo edit {h.anns[:8]} --title`, sync-collection from "
          f"{token} returned {got}, not exactly [({h.anns!r}, {retitled!r})]")
    say(f"sync-collection after a CLI edit returned exactly that task ({token})")
    client.close()


def vdirsyncer_todoman(h, server, creds, venv):
    work = os.path.join(h.root, "phone")
    local = os.path.join(work, "tasks")
    os.makedirs(local)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work, "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8", "XDG_CONFIG_HOME": os.path.join(work, "config"),
           "XDG_CACHE_HOME": os.path.join(work, "cache"), "XDG_DATA_HOME": os.path.join(work, "data"),
           "TZ": "UTC"}
    vconfig = os.path.join(work, "vdirsyncer.conf")
    with open(vconfig, "w") as f:
        f.write(f"""[general]
status_path = "{work}/status/"

[pair phone]
a = "phone_local"
b = "phone_server"
collections = [["mine", "mine", "mine"]]
# The phone's version goes up when both changed: the server merges it with its own
# field by field from the version the phone started from (X-TODO-VERSION).
conflict_resolution = "a wins"

[storage phone_local]
type = "filesystem"
path = "{local}/"
fileext = ".ics"

[storage phone_server]
type = "caldav"
url = "{server.base}"
username = "{creds['user']}"
password = "{creds['password']}"
item_types = ["VTODO"]
""")
    tconfig = os.path.join(work, "todoman.py")
    with open(tconfig, "w") as f:
        f.write(f'path = "{local}/*"\ncache_path = "{work}/todoman.sqlite"\n'
                'date_format = "%Y-%m-%d"\ntime_format = "%H:%M"\ndefault_list = "mine"\n')
    vdirsyncer = [os.path.join(venv, "bin", "vdirsyncer"), "-c", vconfig]
    todoman = [os.path.join(venv, "bin", "todo"), "--config", tconfig]

    def phone(cmd, what, stdin=None):
        try:
            p = subprocess.run(cmd, env=env, input=stdin, capture_output=True, timeout=120)
        except subprocess.TimeoutExpired:
            raise Failed(f"{what} did not finish within 120 s")
        out = (p.stdout + p.stderr).decode("utf-8", "replace")
        if p.returncode != 0:
            raise Failed(f"{what} exited {p.returncode}: {out.strip()[-1500:]}")
        return p.stdout.decode("utf-8", "replace")

    phone(vdirsyncer + ["discover"], "vdirsyncer discover", stdin=b"y\n" * 20)
    phone(vdirsyncer + ["sync"], "vdirsyncer sync")
    folder = os.path.join(local, "mine")

    def ics_of(task_uid):
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            if f"\nUID:{task_uid}\r\n" in text.replace("\r\n", "\r\n") or f"\nUID:{task_uid}\n" in text:
                return name, text
        return None, None

    name, text = ics_of(h.anns)
    check(name is not None, f"after vdirsyncer sync, {folder} holds no .ics with UID {h.anns}: "
          f"{sorted(os.listdir(folder))}")
    say(f"vdirsyncer synced Mine: {len(os.listdir(folder))} files in {folder}")

    listed = json.loads(phone(todoman + ["--porcelain", "list"], "todoman list") or "[]")
    ids = [t["id"] for t in listed if t.get("summary") == h.show(h.anns)["title"]]
    check(len(ids) == 1, f"todoman lists {[(t.get('id'), t.get('summary')) for t in listed]}, "
          "not Ann's task once")
    head = h.git("rev-parse", "HEAD").strip()
    phone(todoman + ["edit", str(ids[0]), "--priority", "high"], "todoman edit --priority high")
    retitled = "Call the plumber, boiler and sink"
    h.todo("edit", h.anns, "--title", retitled)
    say("todoman raised the priority of Ann's task while `todo edit` renamed it")
    phone(vdirsyncer + ["sync"], "vdirsyncer sync (first after the edits)")
    phone(vdirsyncer + ["sync"], "vdirsyncer sync (second)")
    shown = h.show(h.anns)
    check(shown["title"] == retitled and shown["priority"] == "high",
          f"after two syncs, `todo show` has title {shown['title']!r} and priority {shown['priority']!r}; "
          f"wanted {retitled!r} and 'high'")
    name, text = ics_of(h.anns)
    check(text is not None, f"after two syncs, {folder} lost Ann's task")
    unfolded = text.replace("\r\n ", "").replace("\n ", "")
    escaped = retitled.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")  # RFC 5545 TEXT
    check(f"SUMMARY:{escaped}" in unfolded and "PRIORITY:1" in unfolded,
          f"after two syncs, the phone's {name} lacks SUMMARY:{retitled} or PRIORITY:1:\n{text}")
    say("after two syncs both edits are in the phone's .ics and in `todo show`")

    authors = h.git("log", "--format=%an <%ae> %s", f"{head}..HEAD").strip().splitlines()
    check(authors, "the phone's edit made no commit")
    others = [a for a in authors if not a.startswith("Ann <")]
    check(not others, f"commits after the phone's edit not authored by Ann: {others}")
    say(f"git log since the edits: {len(authors)} commits, all Ann's ({authors[0]})")
    return phone, vdirsyncer, todoman, ics_of


BIDI_TITLE = "Pay \u202egnp.exe"  # a right-to-left override: shows as "Pay exe.png"
BIDI_SHOWN = "Pay \\u{202e}gnp.exe"  # its SUMMARY as served and parsed: the override written visibly
ALARMED_TITLE = "Renew the passport"


def alarm(trigger):
    return ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", trigger, "END:VALARM"]


def hand_edit_alarms(h, task_id, kept):
    """Gives the task a `caldav` record whose kept lines are `kept`, as a hand edit committed
    with git would (an older version or another tool could have written it)."""
    path = None
    for name in h.git("ls-files").splitlines():
        if name.endswith(f"{task_id}.json"):
            path = os.path.join(h.repo, name)
    check(path is not None, f"`git ls-files` has no file for task {task_id}")
    with open(path, encoding="utf-8") as f:
        task = json.load(f)
    task["caldav"] = {"item": {"kept": kept}}
    task["stamps"]["caldav"] = task["stamps"]["title"]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(task, f, ensure_ascii=False, indent=2)
        f.write("\n")
    h.git("commit", "-q", "-am", f"Hand edit: alarms for {task_id}")


def served_to_every_app(h, server, creds, phone, vdirsyncer, todoman, ics_of):
    import caldav
    import icalendar

    h.todo("add", BIDI_TITLE, "--assign", "Ann")
    h.todo("add", ALARMED_TITLE, "--assign", "Ann", "--due", "tomorrow")
    ids = {t["title"]: t["id"] for t in h.list()}
    bidi, alarmed = ids[BIDI_TITLE], ids[ALARMED_TITLE]
    hand_edit_alarms(h, alarmed, ["X-KEEP:1"] + alarm("TRIGGER:-P99999999W") + alarm("TRIGGER:-PT15M"))

    client = caldav.DAVClient(url=server.base, username=creds["user"], password=creds["password"],
                              timeout=HTTP_TIMEOUT)
    mine = {c.get_display_name(): c for c in client.principal().calendars()}["Mine"]
    served = {}
    for todo in mine.todos():
        text = todo.data if isinstance(todo.data, str) else todo.data.decode("utf-8")
        served[uid(todo)] = (text, icalendar.Calendar.from_ical(text))
    client.close()
    check(bidi in served and alarmed in served, f"Mine lacks {BIDI_TITLE!r} or {ALARMED_TITLE!r}: {sorted(served)}")
    text, cal = served[bidi]
    got = [str(c.get("summary")) for c in cal.walk("VTODO")]
    check(got == [BIDI_SHOWN],
          f"icalendar parsed the SUMMARY of {bidi} as {got!r}, not the override written visibly")
    check("\u202e" not in text, f"the served {bidi}.ics holds the override itself:\n{text}")
    text, cal = served[alarmed]
    alarms = [a for a in cal.walk("VALARM")]
    triggers = [a.get("trigger").dt for a in alarms]
    check(triggers == [datetime.timedelta(minutes=-15)],
          f"icalendar parsed the triggers {triggers!r} from {alarmed}.ics, not only -15 minutes:\n{text}")
    check("X-KEEP:1" in text, f"{alarmed}.ics lost its other kept line:\n{text}")
    say("python-caldav and icalendar read the override as \\u{202e} and only the placeable alarm")

    phone(vdirsyncer + ["sync"], "vdirsyncer sync (the override and the alarms)")
    listed = json.loads(phone(todoman + ["--porcelain", "list"], "todoman list") or "[]")
    summaries = {t.get("summary"): t["id"] for t in listed}
    check(BIDI_SHOWN in summaries and ALARMED_TITLE in summaries,
          f"todoman lists {sorted(summaries)}, not {BIDI_TITLE!r} written visibly and {ALARMED_TITLE!r}")
    phone(todoman + ["edit", str(summaries[BIDI_SHOWN]), "--priority", "high"],
          "todoman edit --priority high (the override)")
    phone(vdirsyncer + ["sync"], "vdirsyncer sync (after the edit)")
    shown = h.show(bidi)
    check(shown["priority"] == "high" and shown["title"] == BIDI_TITLE,
          f"after todoman's edit, `todo show` has priority {shown['priority']!r} and title {shown['title']!r}; "
          f"wanted 'high' and {BIDI_TITLE!r}")
    name, text = ics_of(alarmed)
    check(text is not None and "P99999999W" not in text and "TRIGGER:-PT15M" in text,
          f"the phone's copy of {alarmed} is {name}:\n{text}")
    say("todoman listed both; its edit sent back kept the stored title, override and all")


def main():
    parser = argparse.ArgumentParser(prog=NAME, description=__doc__.split("\n")[0])
    args = parse_common(parser)
    deadline(args.seconds, NAME)
    h = server = None
    failure = None
    try:
        h = Household(args.todo)
        server = TodoServe(args.serve, h)
        creds = h.app_password(server.port)
        check(creds["url"] == f"{server.base}dav/", f"app-password printed the address {creds['url']!r}")
        say(f"todo-serve on {server.base}, Ann's app password for {creds['user']}")
        python_caldav(h, server, creds)
        served_to_every_app(h, server, creds, *vdirsyncer_todoman(h, server, creds, args.venv))
        fsck = run(["git", "-C", h.repo, "fsck", "--strict"], h.env, timeout=120)
        say(f"git fsck --strict is clean{': ' + fsck.strip() if fsck.strip() else ''}")
    except Failed as e:
        failure = str(e)
    except Exception:  # a client library's own error: the run fails with its traceback
        failure = traceback.format_exc()
    finally:
        if server is not None:
            code = server.stop()
            if code != 0 and failure is None:
                failure = f"todo-serve exited {code} on SIGTERM, not 0 (log: {server.tail()})"
            if failure is not None:
                print(f"{NAME}: todo-serve's log ({server.log_path}):\n{server.tail(4000)}", file=sys.stderr)
        signal_off()
    if failure is not None:
        print(f"{NAME}: FAILED: {failure}", file=sys.stderr)
        if h is not None:
            print(f"{NAME}: the household is kept in {h.root}", file=sys.stderr)
        return 1
    if h is not None and not args.keep:
        shutil.rmtree(h.root, ignore_errors=True)
    say("passed")
    return 0


def signal_off():
    import signal
    signal.alarm(0)


if __name__ == "__main__":
    sys.exit(main())
