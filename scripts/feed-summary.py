#!/usr/bin/env python3
"""Reads an iCalendar feed with the `icalendar` package (an independent parser) and prints
what the end-to-end tests check, as JSON: each VEVENT and VTODO (UID, summary, description,
status, SEQUENCE, start and end as written, the start in UTC as Python's own tz database places
it, alarms), and each VTIMEZONE observance checked against that tz database.

    python3 scripts/feed-summary.py FEED.ics

Exit 2 when the feed cannot be parsed (the parser's message on stderr)."""
import datetime
import json
import sys

try:
    import icalendar
except ImportError:
    print("the Python package icalendar is missing: run sh scripts/deps.sh --test "
          "(Debian: python3-icalendar; PyPI: icalendar)", file=sys.stderr)
    sys.exit(3)
from zoneinfo import ZoneInfo


def when(prop):
    """(kind, written value, UTC ISO or None, TZID) of a DTSTART/DTEND/DUE property."""
    if prop is None:
        return None
    value = prop.dt
    tzid = prop.params.get("TZID")
    if isinstance(value, datetime.datetime):
        naive = value.replace(tzinfo=None)
        utc = None
        if tzid:
            utc = naive.replace(tzinfo=ZoneInfo(str(tzid))).astimezone(datetime.timezone.utc)
        elif value.tzinfo is not None:
            utc = value.astimezone(datetime.timezone.utc)
        return {"kind": "datetime", "local": naive.isoformat(), "utc": utc.isoformat() if utc else None,
                "tzid": str(tzid) if tzid else None}
    return {"kind": "date", "local": value.isoformat(), "utc": None, "tzid": None}


def component(c):
    out = {
        "uid": str(c.get("UID")),
        "summary": str(c.get("SUMMARY", "")),
        "description": str(c.get("DESCRIPTION", "")),
        "status": str(c.get("STATUS", "")),
        "sequence": int(c.get("SEQUENCE", 0)),
        "lastModified": c.decoded("LAST-MODIFIED").isoformat() if c.get("LAST-MODIFIED") else None,
        "dtstamp": c.decoded("DTSTAMP").isoformat() if c.get("DTSTAMP") else None,
        "start": when(c.get("DTSTART")),
        "end": when(c.get("DTEND")),
        "due": when(c.get("DUE")),
        "alarms": [],
    }
    for a in c.walk("VALARM"):
        trigger = a.get("TRIGGER")
        out["alarms"].append({"trigger": trigger.to_ical().decode(), "related": str(trigger.params.get("RELATED", "START"))})
    return out


def observances(cal):
    """Each VTIMEZONE observance, and whether Python's tz database agrees with its offsets."""
    out = []
    for tz in cal.walk("VTIMEZONE"):
        name = str(tz.get("TZID"))
        zone = ZoneInfo(name)
        for o in tz.subcomponents:
            start = o.get("DTSTART").dt.replace(tzinfo=None)
            before = o.decoded("TZOFFSETFROM")
            after = o.decoded("TZOFFSETTO")
            onset = (start - before).replace(tzinfo=datetime.timezone.utc)
            seen = onset.astimezone(zone).utcoffset()
            out.append({"tzid": name, "kind": o.name, "start": start.isoformat(),
                        "to": after.total_seconds(), "agrees": seen == after})
    return out


def main():
    data = open(sys.argv[1], "rb").read()
    try:
        cal = icalendar.Calendar.from_ical(data)
    except Exception as e:  # the parser's own complaint is the finding
        print(f"unparseable feed: {e}", file=sys.stderr)
        sys.exit(2)
    lines = data.split(b"\r\n")
    print(json.dumps({
        "name": str(cal.get("X-WR-CALNAME", "")),
        "version": str(cal.get("VERSION", "")),
        "events": [component(e) for e in cal.walk("VEVENT")],
        "todos": [component(t) for t in cal.walk("VTODO")],
        "timezones": observances(cal),
        "longestLine": max(len(line) for line in lines),
        "bareNewlines": data.replace(b"\r\n", b"").count(b"\n") + data.replace(b"\r\n", b"").count(b"\r"),
        "endsWithCRLF": data.endswith(b"\r\n"),
    }, ensure_ascii=False))


main()
