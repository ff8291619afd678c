#!/usr/bin/python3
"""Independent reference for passes: test/astronomy/passes-crosscheck.test.ts.

Run with Debian's interpreter (/usr/bin/python3: python3-skyfield, python3-sgp4,
python3-ephem).  No network and no ephemeris file: Skyfield's built-in tables, the
Sun from PyEphem.  The choices of skyfield_nearby.py hold here too (UT1 = UTC, the
same element sets, the same umbra geometry and Sun): its helpers are imported.

stdin: JSON
  {
    "snapshot": "data/snapshot.json",
    "cases": [{
      "noradId": 25544, "latitude": deg, "longitude": deg, "altitude": metres,
      "from": ISO, "to": ISO, "threshold": deg,
      "evaluate": [ISO, ...],       # instants at which to report Skyfield's alt/az
      "standardMagnitude": m,       # optional, with magnitudeLimit: visibility also needs the
      "magnitudeLimit": m           # magnitude (std - 15 + 5 log10 range - 2.5 log10 (sin p + (pi - p) cos p),
                                    # p the phase angle; Skyfield's range, PyEphem's Sun) at or below the limit
    }]
  }

stdout: JSON
  {"cases": [{
     "events": [{"kind": "rise" | "culmination" | "set", "datetime": ISO,
                 "elevation", "azimuth", "range", "exact": ISO}],
        # EarthSatellite.find_events(topos, t0, t1, altitude_degrees=threshold), as is;
        # the angles are Skyfield's at the event's instant.  find_events locates crossings
        # on a coarse grid with a simplified Earth rotation (no nutation), which can put
        # them more than a second off; "exact" (rise and set only) is where Skyfield's full
        # altitude crosses the threshold nearest to the event (bisection to 1 ms).
     "crossings": [{"kind": "rise" | "set", "datetime": ISO, "maxElevation"}],
        # Independent of find_events: Skyfield's full altitude sampled every 10 s
        # (a 600th of the period, at most 60 s) over the window, each change of side refined by bisection
        # to 1 ms.  maxElevation (rises only): the highest sample before the next set.
        # Passes shorter than the grid step can be missing.
     "altitudeAtFrom", "altitudeAtTo",                     # degrees, at the window's ends
     "at": [{"elevation", "azimuth", "range"}],          # one per "evaluate" instant
     "passes": [{"from": ISO, "to": ISO, "sampleStepS": s,
                 "samples": "vvvi??i..."}],
        # The passes of "crossings" (rise to set; the window's ends where one is missing),
        # sampled every sampleStepS seconds from "from" (the last sample is "to"):
        #   v  surely visible:   sunlit, Sun <= -6.05 deg, elevation >= threshold + 0.01
        #                        (and magnitude <= limit - 0.02 when a limit is given)
        #   i  surely invisible: in the umbra, or Sun > -5.95 deg, or elevation < threshold - 0.01
        #                        (or magnitude > limit + 0.02)
        #   ?  too near a boundary for the two models to be compared
  }]}
"""
import json
import math
import os
import sys
from datetime import datetime, timedelta, timezone

import numpy as np
from skyfield.api import EarthSatellite, wgs84

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skyfield.constants import AU_KM  # noqa: E402
from skyfield.functions import mxv  # noqa: E402
from skyfield.sgp4lib import TEME  # noqa: E402
from skyfield_nearby import TS, phase_angle_deg, read_snapshot, sun_altitude_deg, sun_vector_km, sunlit_flags  # noqa: E402

EVENT_KINDS = ('rise', 'culmination', 'set')
SUN_MARGIN_DEG = 0.05
ELEVATION_MARGIN_DEG = 0.01
CIVIL_TWILIGHT_DEG = -6.0
MAX_SAMPLES_PER_PASS = 600
MAGNITUDE_MARGIN = 0.02
# The sampled crossings' grid: a 600th of the period, 10 s to 60 s (ISS 10 s; Molniya, GEO 60 s).
CROSSING_GRID_MIN_S = 10.0
CROSSING_GRID_MAX_S = 60.0
BISECTION_TOLERANCE_DAYS = 0.001 / 86400.0


def parse_instant(text):
    return datetime.fromisoformat(text.replace('Z', '+00:00')).astimezone(timezone.utc)


def iso(when):
    when = when.astimezone(timezone.utc)
    return when.strftime('%Y-%m-%dT%H:%M:%S.') + f'{when.microsecond // 1000:03d}Z'


def times_of(datetimes):
    return TS.from_datetimes(list(datetimes))


def sgp4_teme_km(satrec, datetimes):
    """TEME positions (3, n) from python-sgp4 at UTC instants (UT1 = UTC)."""
    unix = np.array([d.timestamp() for d in datetimes])
    days = np.floor(unix / 86400.0)
    jd = 2440587.5 + days
    fr = (unix - days * 86400.0) / 86400.0
    _, r, _ = satrec.sgp4_array(jd, fr)
    return np.asarray(r).T


def magnitude(standard, range_km, phase_deg):
    p = math.radians(phase_deg)
    return standard - 15 + 5 * math.log10(range_km) - 2.5 * math.log10(max(1e-6, math.sin(p) + (math.pi - p) * math.cos(p)))


def classify(satellite, satrec, topos, observer, threshold, datetimes, brightness=None):
    t = times_of(datetimes)
    alt, _, dist = (satellite - topos).at(t).altaz()
    r = sgp4_teme_km(satrec, datetimes)
    observer_teme_km = None
    if brightness is not None:
        observer_teme_km = mxv(TEME.rotation_at(t), topos.at(t).position.au) * AU_KM
    out = []
    for k, when in enumerate(datetimes):
        sun_km = sun_vector_km(when)
        sunlit = sunlit_flags(r[:, k:k + 1], sun_km)[0]
        sun = sun_altitude_deg(when, observer)
        el = alt.degrees[k]
        bright, faint = True, False
        if brightness is not None:
            m = magnitude(brightness[0], dist.km[k], phase_angle_deg(r[:, k], observer_teme_km[:, k], sun_km))
            bright, faint = m <= brightness[1] - MAGNITUDE_MARGIN, m > brightness[1] + MAGNITUDE_MARGIN
        if sunlit is False or sun > CIVIL_TWILIGHT_DEG + SUN_MARGIN_DEG or el < threshold - ELEVATION_MARGIN_DEG or faint:
            out.append('i')
        elif sunlit is True and sun <= CIVIL_TWILIGHT_DEG - SUN_MARGIN_DEG and el >= threshold + ELEVATION_MARGIN_DEG and bright:
            out.append('v')
        else:
            out.append('?')
    return ''.join(out)


def altitude_deg(satellite, topos, tt):
    """Skyfield's full topocentric altitude (degrees) at TT Julian dates."""
    return (satellite - topos).at(TS.tt_jd(np.asarray(tt, dtype=float))).altaz()[0].degrees


def bisect_crossings(satellite, topos, threshold, lo, hi):
    """Where the altitude crosses the threshold in each [lo, hi] (TT Julian dates) whose ends lie on opposite sides."""
    lo = np.array(lo, dtype=float)
    hi = np.array(hi, dtype=float)
    if not len(lo):
        return lo
    above_lo = altitude_deg(satellite, topos, lo) >= threshold
    while np.max(hi - lo) > BISECTION_TOLERANCE_DAYS:
        mid = (lo + hi) / 2.0
        same = (altitude_deg(satellite, topos, mid) >= threshold) == above_lo
        lo = np.where(same, mid, lo)
        hi = np.where(same, hi, mid)
    return (lo + hi) / 2.0


def exact_crossings(satellite, topos, threshold, tt):
    """For each TT Julian date, the crossing of Skyfield's full altitude nearest to it (within +-120 s), or None."""
    tt = np.asarray(tt, dtype=float)
    lo = np.full(len(tt), np.nan)
    hi = np.full(len(tt), np.nan)
    for half_width_s in (2.0, 10.0, 30.0, 120.0):
        todo = np.flatnonzero(np.isnan(lo))
        if not len(todo):
            break
        offsets = np.linspace(-half_width_s, half_width_s, 41) / 86400.0
        grid = tt[todo, None] + offsets[None, :]
        above = (altitude_deg(satellite, topos, grid.ravel()) >= threshold).reshape(grid.shape)
        for row, k in enumerate(todo):
            changes = np.flatnonzero(above[row, 1:] != above[row, :-1])
            if len(changes):
                j = changes[np.argmin(np.abs(offsets[changes]))]
                lo[k], hi[k] = grid[row, j], grid[row, j + 1]
    found = np.flatnonzero(~np.isnan(lo))
    out = [None] * len(tt)
    for k, value in zip(found, bisect_crossings(satellite, topos, threshold, lo[found], hi[found])):
        out[k] = value
    return out


def sampled_crossings(satellite, topos, threshold, start, end):
    period_s = 2 * math.pi / satellite.model.no_kozai * 60.0
    grid_s = min(CROSSING_GRID_MAX_S, max(CROSSING_GRID_MIN_S, period_s / 600.0))
    t0, t1 = TS.from_datetime(start).tt, TS.from_datetime(end).tt
    count = int(math.ceil((t1 - t0) * 86400.0 / grid_s))
    grid = np.linspace(t0, t1, count + 1)
    alt = altitude_deg(satellite, topos, grid)
    above = alt >= threshold
    changes = np.flatnonzero(above[1:] != above[:-1])
    times = bisect_crossings(satellite, topos, threshold, grid[changes], grid[changes + 1])
    out = []
    for n, k in enumerate(changes):
        kind = 'rise' if above[k + 1] else 'set'
        item = {'kind': kind, 'datetime': iso(TS.tt_jd(times[n]).utc_datetime())}
        if kind == 'rise':
            following = changes[n + 1] if n + 1 < len(changes) else len(alt) - 1
            item['maxElevation'] = float(np.max(alt[k + 1:following + 1]))
        out.append(item)
    return out, float(alt[0]), float(alt[-1])


def run_case(case, catalogue):
    _, satrec, line1, line2, name = catalogue[case['noradId']]
    satellite = EarthSatellite(line1, line2, name, TS)
    observer = {'latitude': case['latitude'], 'longitude': case['longitude'], 'altitude': case.get('altitude', 0.0)}
    topos = wgs84.latlon(observer['latitude'], observer['longitude'], elevation_m=observer['altitude'])
    start, end = parse_instant(case['from']), parse_instant(case['to'])
    threshold = float(case['threshold'])
    brightness = (float(case['standardMagnitude']), float(case['magnitudeLimit'])) if 'magnitudeLimit' in case else None

    t, kinds = satellite.find_events(topos, TS.from_datetime(start), TS.from_datetime(end), altitude_degrees=threshold)
    events = []
    if len(t):
        alt, az, dist = (satellite - topos).at(t).altaz()
        exact = exact_crossings(satellite, topos, threshold, t.tt)
        for k, kind in enumerate(kinds):
            event = {'kind': EVENT_KINDS[kind], 'datetime': iso(t[k].utc_datetime()),
                     'elevation': float(alt.degrees[k]), 'azimuth': float(az.degrees[k] % 360.0),
                     'range': float(dist.km[k])}
            if EVENT_KINDS[kind] != 'culmination':
                event['exact'] = None if exact[k] is None else iso(TS.tt_jd(exact[k]).utc_datetime())
            events.append(event)
    crossings, altitude_at_from, altitude_at_to = sampled_crossings(satellite, topos, threshold, start, end)

    at = []
    if case.get('evaluate'):
        te = times_of(parse_instant(x) for x in case['evaluate'])
        alt, az, dist = (satellite - topos).at(te).altaz()
        at = [{'elevation': float(alt.degrees[k]), 'azimuth': float(az.degrees[k] % 360.0), 'range': float(dist.km[k])}
              for k in range(len(case['evaluate']))]

    # The passes of the sampled crossings: from each rise (or the window's start) to the next set (or the end).
    passes = []
    opened = start
    is_open = altitude_at_from >= threshold
    for e in crossings:
        when = parse_instant(e['datetime'])
        if e['kind'] == 'rise':
            opened, is_open = when, True
        elif e['kind'] == 'set' and is_open:
            passes.append((opened, when))
            is_open = False
    if is_open:
        passes.append((opened, end))
    out_passes = []
    for a, b in passes:
        seconds = (b - a).total_seconds()
        step = max(1.0, math.ceil(seconds / MAX_SAMPLES_PER_PASS))
        count = int(seconds // step)
        datetimes = [a + timedelta(seconds=step * k) for k in range(count + 1)]
        if datetimes[-1] < b:
            datetimes.append(b)
        out_passes.append({'from': iso(a), 'to': iso(b), 'sampleStepS': step,
                           'samples': classify(satellite, satrec, topos, observer, threshold, datetimes, brightness)})
    return {'events': events, 'crossings': crossings, 'altitudeAtFrom': altitude_at_from, 'altitudeAtTo': altitude_at_to,
            'at': at, 'passes': out_passes}


def main():
    request = json.load(sys.stdin)
    catalogue = read_snapshot(request['snapshot'])
    json.dump({'cases': [run_case(case, catalogue) for case in request['cases']]}, sys.stdout)


if __name__ == '__main__':
    main()
