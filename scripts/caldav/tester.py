#!/usr/bin/env python3
"""caldav-server-tester (the python-caldav project's server checker) against a fresh
`todo-serve`, or against Radicale to compare: every feature it probes and how well it is
supported, as a markdown table (the tester's JSON is compact: a feature found to have the
default support, full, is not in it).

    VENV/bin/python scripts/caldav/tester.py [--todo .build/debug/todo]
        [--serve .build/debug/todo-serve] [--venv ~/.cache/todo/caldav-venv] [--radicale]
        [--out FILE] [--run-checks NAME]... [--keep]

The household of scripts/caldav/common.py and an app password of Ann's; the tester runs with
`--caldav-calendar Mine --format json` (with --radicale: a calendar "Mine" made first with
python-caldav on a Radicale of its own). The raw JSON goes to --out. Exit 1 when any feature is
`broken`, when the tester failed, or when `sync-token` is not `full`; 0 otherwise (the features
a to-do server does not have, events or MKCALENDAR, are listed, not failed).

One failure of the tester is expected against todo-serve and reported, not failed: the tester
saves VEVENTs to set up its checks, which a collection of to-dos refuses (RFC 4791 §5.3.2.1,
`supported-calendar-component`); its duplicate-event check then stops the run with its own
assertion ("CheckDuplicateEvent failed to check declared features") before the sync-token check,
which also probes with a VEVENT. docs/CALDAV.md, "caldav-server-tester", has the table; the
sync-collection report is checked by scripts/caldav/clients.py and CalDAVRouteTests instead.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Failed, Household, Radicale, TodoServe, deadline, parse_common  # noqa: E402

NAME = "caldav-tester"


def say(message):
    print(f"{NAME}: {message}", flush=True)


def radicale_calendar(base, user, password):
    import caldav  # the virtual environment's

    client = caldav.DAVClient(url=base, username=user, password=password, timeout=30)
    client.principal().make_calendar(name="Mine", cal_id="mine", supported_calendar_component_set=["VTODO"])


def table(features):
    rows = ["| feature | support | behaviour |", "|---|---|---|"]
    for name in sorted(features):
        f = features[name] if isinstance(features[name], dict) else {"support": str(features[name])}
        note = str(f.get("behaviour") or f.get("description") or "").replace("|", "\\|").replace("\n", " ")
        rows.append(f"| {name} | {f.get('support', '?')} | {note[:160]} |")
    return "\n".join(rows)


def main():
    parser = argparse.ArgumentParser(prog=NAME, description=__doc__.split("\n")[0])
    parser.add_argument("--radicale", action="store_true", help="test Radicale instead of todo-serve")
    parser.add_argument("--out", help="where the tester's raw JSON goes")
    parser.add_argument("--run-checks", action="append", default=[], help="only this check class")
    args = parse_common(parser)
    deadline(args.seconds, NAME)
    h = server = None
    failures = []
    try:
        h = Household(args.todo)
        if args.radicale:
            server = Radicale(args.venv, os.path.join(h.root, "radicale"), os.path.join(h.root, "radicale.log"))
            user, password = "ann", "any"
            radicale_calendar(server.base, user, password)
        else:
            server = TodoServe(args.serve, h)
            creds = h.app_password(server.port)
            user, password = creds["user"], creds["password"]
        say(f"{'radicale' if args.radicale else 'todo-serve'} on {server.base}")
        cmd = [os.path.join(args.venv, "bin", "caldav-server-tester"), "--caldav-url", server.base,
               "--caldav-username", user, "--caldav-password", password, "--caldav-calendar", "Mine",
               "--format", "json"]
        for check in args.run_checks:
            cmd += ["--run-checks", check]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": h.env["HOME"],
               "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "XDG_CONFIG_HOME": h.env["XDG_CONFIG_HOME"]}
        try:
            p = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=900)
        except subprocess.TimeoutExpired:
            raise Failed("caldav-server-tester did not finish within 900 s")
        out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
        if args.out:
            with open(args.out, "w") as f:
                f.write(out)
        events_refused = (not args.radicale and p.returncode != 0
                          and "CheckDuplicateEvent failed to check declared features" in err)
        if events_refused:
            say("the tester stopped at its duplicate-event check: its VEVENTs are refused by a to-do "
                "collection (RFC 4791 §5.3.2.1); the checks after it, sync-token among them, did not run")
        elif p.returncode != 0:
            failures.append(f"caldav-server-tester exited {p.returncode}: {err.strip()[-1500:]}")
        try:
            report = json.loads(out)
            features = report["features"]
        except (ValueError, KeyError, TypeError):
            raise Failed(f"caldav-server-tester printed no JSON report: {out[:300]!r}; {err.strip()[-1500:]}")
        print(table(features), flush=True)
        broken = sorted(n for n, f in features.items() if isinstance(f, dict) and f.get("support") == "broken")
        if broken:
            failures.append(f"features broken: {', '.join(broken)}")
        # The JSON report is compact: a feature probed and found as the default (full) is left
        # out, so an absent sync-token is full unless the run stopped before probing it.
        sync = features.get("sync-token", {"support": "full" if p.returncode == 0 else "not probed"})
        say(f"sync-token: {sync.get('support') if isinstance(sync, dict) else sync}")
        if (not args.run_checks or "CheckSyncToken" in args.run_checks) and not events_refused:
            if not isinstance(sync, dict) or sync.get("support") != "full":
                failures.append(f"sync-token is {sync.get('support') if isinstance(sync, dict) else sync!r}, not full "
                                f"({sync.get('behaviour', '') if isinstance(sync, dict) else ''})")
    except Failed as e:
        failures.append(str(e))
    except Exception as e:  # python-caldav's own error (making Radicale's calendar): fails the run
        failures.append(f"{type(e).__name__}: {e}")
    finally:
        if server is not None:
            code = server.stop()
            if code not in (0, None if args.radicale else 0):
                failures.append(f"{server.name} exited {code} on SIGTERM, not 0")
        import signal
        signal.alarm(0)
    if failures:
        for f in failures:
            print(f"{NAME}: FAILED: {f}", file=sys.stderr)
        if h is not None:
            print(f"{NAME}: the household is kept in {h.root}", file=sys.stderr)
        return 1
    if h is not None and not args.keep:
        shutil.rmtree(h.root, ignore_errors=True)
    say("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
