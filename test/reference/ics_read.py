#!/usr/bin/python3
"""Reads an iCalendar file with Debian's python3-icalendar: test/interop/ics.test.ts.

stdin: the calendar (bytes, as served).
stdout: JSON {"calendar": {"version", "prodid", "name", "description", "caldesc"} (the last two null when absent),
              "events": [{"uid", "start", "end", "summary", "description", "geo": [lat, lon], "stamp"}]}
  start, end, stamp: ISO 8601 UTC as parsed (aware datetimes, converted to UTC).
A calendar the library cannot read ends the script with an error (exit 1).
"""
import json
import sys
from datetime import timezone

from icalendar import Calendar


def text_or_none(value):
    return None if value is None else str(value)


def iso(value):
    return value.astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def main():
    calendar = Calendar.from_ical(sys.stdin.buffer.read())
    if calendar.name != 'VCALENDAR':
        raise SystemExit(f'not a calendar: {calendar.name}')
    events = []
    for event in calendar.walk('VEVENT'):
        start = event.decoded('DTSTART')
        end = event.decoded('DTEND')
        if start.tzinfo is None or end.tzinfo is None:
            raise SystemExit('DTSTART and DTEND must be UTC date-times')
        geo = event.get('GEO')
        events.append({
            'uid': str(event.get('UID')),
            'start': iso(start),
            'end': iso(end),
            'stamp': iso(event.decoded('DTSTAMP')),
            'summary': str(event.get('SUMMARY')),
            'description': str(event.get('DESCRIPTION')),
            'geo': [geo.latitude, geo.longitude] if geo is not None else None,
        })
    json.dump({
        'calendar': {
            'version': str(calendar.get('VERSION')),
            'prodid': str(calendar.get('PRODID')),
            'name': str(calendar.get('X-WR-CALNAME')),
            'description': text_or_none(calendar.get('DESCRIPTION')),
            'caldesc': text_or_none(calendar.get('X-WR-CALDESC')),
        },
        'events': events,
    }, sys.stdout)


if __name__ == '__main__':
    main()
