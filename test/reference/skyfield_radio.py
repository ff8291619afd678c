#!/usr/bin/python3
"""Independent reference for range rates and Doppler shifts: test/astronomy/radio-crosscheck.test.ts.

Run with Debian's interpreter (/usr/bin/python3: python3-skyfield, python3-sgp4).
No network and no ephemeris file.  The choices of skyfield_nearby.py hold here too
(UT1 = UTC, the same element sets): its helpers are imported.

stdin: JSON
  {
    "snapshot": "data/snapshot.json",
    "cases": [{"noradId": 25544, "latitude": deg, "longitude": deg, "altitude": metres,
               "instants": [ISO, ...]}]
  }

stdout: JSON
  {"cases": [{"at": [{"elevation", "azimuth", "range", "rangeRate"}]}]}
    # Skyfield's topocentric position of the satellite, (EarthSatellite - wgs84.latlon).at(t),
    # and its frame_latlon_and_rates(topos): the rate of change of the distance in the
    # observer's own (rotating) frame, km/s, positive while the distance grows.
"""
import json
import os
import sys

from skyfield.api import EarthSatellite, wgs84

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from skyfield_nearby import TS, parse_instant, read_snapshot  # noqa: E402


def main():
    request = json.load(sys.stdin)
    chosen = read_snapshot(request['snapshot'])
    out = []
    for case in request['cases']:
        _, _, line1, line2, name = chosen[case['noradId']]
        satellite = EarthSatellite(line1, line2, name, TS)
        topos = wgs84.latlon(case['latitude'], case['longitude'], elevation_m=case['altitude'])
        t = TS.from_datetimes([parse_instant(i) for i in case['instants']])
        relative = (satellite - topos).at(t)
        alt, az, distance = relative.altaz()
        _, _, _, _, _, range_rate = relative.frame_latlon_and_rates(topos)
        out.append({'at': [
            {'elevation': float(alt.degrees[k]), 'azimuth': float(az.degrees[k]), 'range': float(distance.km[k]),
             'rangeRate': float(range_rate.km_per_s[k])}
            for k in range(len(case['instants']))
        ]})
    json.dump({'cases': out}, sys.stdout)


if __name__ == '__main__':
    main()
