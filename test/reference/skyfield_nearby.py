#!/usr/bin/python3
"""Independent astronomy reference for test/astronomy/crosscheck.test.ts.

Run with Debian's interpreter (/usr/bin/python3), which has python3-skyfield,
python3-sgp4 and python3-ephem.  Nothing here touches the network: Skyfield's
built-in leap-second table is used and no ephemeris file is loaded.

stdin: JSON
  {
    "snapshot": "data/snapshot.json",      # the bundle the service embeds
    "instants": ["2026-05-31T00:00:00.000Z", ...],
    "observers": [{"latitude": deg, "longitude": deg, "altitude": metres}, ...],
    "elevationThreshold": 10,               # degrees
    "reportBelowThreshold": 1.0,            # also report satellites this far below it
    "geoIds": [25544, ...]                  # satellites for the geoposition check
  }

stdout: JSON
  {
    "satellites": <element sets read>,
    "instants": [{
       "instant", "withPosition": <count>,
       "withoutPosition": [[noradId, reason], ...],
       "geo": [{"noradId", "latitude", "longitude", "altitude"}],   # geoIds with a position
       "observers": [{
          "sunAltitudeDeg",                   # PyEphem, geometric (pressure 0), topocentric
          "satellites": [{"noradId", "elevation", "azimuth", "range", "altitude", "latitude",
                          "longitude", "velocityKmHs", "sunlit", "phaseAngle"}]
                          # sunlit: true, false, or null near the umbra boundary
                          # phaseAngle: degrees, the angle at the satellite between the Sun and the observer
       }]
    }],
    "selfCheck": {...}                      # vectorised path vs Skyfield's EarthSatellite API
  }

Choices, each independent of the service's code (satellite.js):
- SGP4: python-sgp4 (Vallado's SGP4, WGS72, opsmode 'i', as Skyfield's EarthSatellite uses),
  called as sat.model.sgp4(jd, fr) with the UTC Julian date.
- "Has a position" (docs/contract.md section 0): SGP4 error code 0, every coordinate finite,
  geodetic (WGS84) height between 0 and 1,000,000 km.
- Frames: Skyfield's TEME -> GCRS rotation, its WGS84 geodetic latitude/longitude/height
  and its topocentric alt/az of (satellite - observer).  For the whole catalogue the same
  Skyfield calls are applied to arrays of positions (one call per instant, not per satellite);
  selfCheck compares that with EarthSatellite.at() / (sat - topos).at(t).altaz() for a sample.
- UT1 = UTC (delta T = 32.184 s + 37 leap seconds).  Skyfield's built-in Earth-orientation
  table ends in 2023 and extrapolates UT1-UTC to about +0.4 s for 2026, which is not real
  data; SGP4 users (and satellite.js) take UT1 = UTC, and this test has no network to fetch
  current IERS data.  The difference is at most ~0.005 degrees of Earth rotation.
- Sun: PyEphem.  Observer daytime from ephem.Sun at an ephem.Observer with pressure = 0
  (no refraction: the geometric altitude of the Sun's centre).
- Phase angle: between the satellite-to-Sun vector (the Sun from PyEphem, as for the umbra) and the
  satellite-to-observer vector (Skyfield's observer position, rotated GCRS -> TEME), both in TEME.
- Umbra: own conical-shadow geometry in this file (not ephem's EarthSatellite.eclipsed,
  whose SDP4 and Earth model differ), using the Sun's apparent geocentric position from
  PyEphem (g_ra, g_dec, earth_distance; true equinox of date, within ~1" of TEME).
  A satellite is in the umbra when it lies behind the Earth inside the cone tangent to
  the Sun (radius 695,700 km) and the Earth.  The Earth is a sphere; the result is taken
  only when it is the same for the polar (6356.752 km) and equatorial (6378.137 km) radii
  and the satellite is more than a small margin from both cones; otherwise sunlit = null.
"""
import json
import math
import sys
from datetime import datetime, timezone

import ephem
import numpy as np
from sgp4.api import Satrec, jday
from skyfield.api import EarthSatellite, load, wgs84
from skyfield.constants import AU_KM, DAY_S
from skyfield.functions import _T, mxv
from skyfield.positionlib import Geocentric, Geometric
from skyfield.sgp4lib import TEME

MAX_HEIGHT_KM = 1_000_000.0
SUN_RADIUS_KM = 695_700.0
EARTH_EQUATORIAL_KM = 6378.137
EARTH_POLAR_KM = 6356.752
# UT1 = UTC: TT - UT1 = 32.184 s + (TAI - UTC = 37 s since 2017).
TS = load.timescale(builtin=True, delta_t=32.184 + 37.0)


def parse_instant(text):
    return datetime.fromisoformat(text.replace('Z', '+00:00')).astimezone(timezone.utc)


def read_snapshot(path):
    """Element sets of every group; an id in several groups keeps the newest epoch (first on a tie).

    As the service does at load, a set is left out when SGP4 cannot initialise it
    or its epoch is more than a day after the snapshot's stamp (when the data was
    obtained)."""
    with open(path, encoding='utf-8') as f:
        bundle = json.load(f)
    stamp = parse_instant(bundle['stamp'])
    latest_jd = stamp.timestamp() / 86400.0 + 2440587.5 + 1.0
    chosen = {}
    for group in sorted(bundle['groups']):
        lines = [line.rstrip() for line in bundle['groups'][group].splitlines()]
        i = 0
        name = ''
        while i < len(lines):
            line = lines[i]
            if line.startswith('1 ') and i + 1 < len(lines) and lines[i + 1].startswith('2 '):
                line2 = lines[i + 1]
                sat = Satrec.twoline2rv(line, line2)
                epoch = sat.jdsatepoch + sat.jdsatepochF
                previous = chosen.get(sat.satnum)
                refused = sat.error != 0 or epoch > latest_jd
                if not refused and (previous is None or epoch > previous[0]):
                    chosen[sat.satnum] = (epoch, sat, line, line2, name)
                name = ''
                i += 2
                continue
            if line.strip():
                name = line.strip()
            i += 1
    return dict(sorted(chosen.items()))


def sun_vector_km(when):
    sun = ephem.Sun()
    sun.compute(ephem.Date(when.replace(tzinfo=None)))
    ra, dec, dist = float(sun.g_ra), float(sun.g_dec), sun.earth_distance * AU_KM
    return np.array([math.cos(dec) * math.cos(ra), math.cos(dec) * math.sin(ra), math.sin(dec)]) * dist


def sun_altitude_deg(when, observer):
    o = ephem.Observer()
    o.lat = math.radians(observer['latitude'])
    o.lon = math.radians(observer['longitude'])
    o.elevation = observer.get('altitude', 0.0)
    o.pressure = 0  # no refraction: geometric altitude
    o.date = ephem.Date(when.replace(tzinfo=None))
    return math.degrees(float(ephem.Sun(o).alt))


def sunlit_flags(r_km, sun_km):
    """True / False, or None when the satellite is too near the umbra boundary to tell."""
    d = np.linalg.norm(sun_km)
    u = -sun_km / d  # antisolar direction
    x = u @ r_km  # distance behind the Earth along the shadow axis
    rho = np.linalg.norm(r_km - np.outer(u, x), axis=0)  # distance from the shadow axis

    def umbra_radius(earth_km):
        apex = earth_km * d / (SUN_RADIUS_KM - earth_km)  # cone apex behind the Earth
        sin_a = earth_km / apex
        return (apex - x) * sin_a / math.sqrt(1 - sin_a * sin_a)

    radius = np.linalg.norm(r_km, axis=0)
    margin = 2.0 + radius * math.radians(0.02)  # km: Sun direction and position tolerances
    surely_lit = (x <= 0) | (rho > umbra_radius(EARTH_EQUATORIAL_KM) + margin)
    surely_dark = (x > margin) & (rho < umbra_radius(EARTH_POLAR_KM) - margin)
    return [True if lit else False if dark else None for lit, dark in zip(surely_lit, surely_dark)]


def phase_angle_deg(satellite_km, observer_km, sun_km):
    to_sun = sun_km - satellite_km
    to_observer = observer_km - satellite_km
    cosine = float(to_sun @ to_observer) / (np.linalg.norm(to_sun) * np.linalg.norm(to_observer))
    return math.degrees(math.acos(max(-1.0, min(1.0, cosine))))


def main():
    request = json.load(sys.stdin)
    catalogue = read_snapshot(request['snapshot'])
    ids = np.array(list(catalogue.keys()))
    threshold = float(request.get('elevationThreshold', 10))
    lowest = threshold - float(request.get('reportBelowThreshold', 1.0))
    geo_ids = set(request.get('geoIds', []))
    observers = request['observers']
    topos = [wgs84.latlon(o['latitude'], o['longitude'], elevation_m=o.get('altitude', 0.0)) for o in observers]
    self_check = {'maxElevationDiff': 0.0, 'maxAzimuthDiff': 0.0, 'maxRangeDiffKm': 0.0, 'maxLatLonDiff': 0.0,
                  'maxHeightDiffKm': 0.0, 'compared': 0}
    out_instants = []
    for text in request['instants']:
        when = parse_instant(text)
        t = TS.from_datetime(when)
        jd, fr = jday(when.year, when.month, when.day, when.hour, when.minute,
                      when.second + when.microsecond / 1e6)
        # SGP4 for every satellite: TEME position (km) and velocity (km/s).
        n = len(ids)
        r = np.full((3, n), np.nan)
        v = np.full((3, n), np.nan)
        err = np.zeros(n, dtype=int)
        for k, entry in enumerate(catalogue.values()):
            e, rk, vk = entry[1].sgp4(jd, fr)
            err[k] = e
            r[:, k] = rk
            v[:, k] = vk
        finite = np.all(np.isfinite(r), axis=0) & np.all(np.isfinite(v), axis=0)
        # Skyfield: TEME -> GCRS, then WGS84 geodetic coordinates.
        rotation = _T(TEME.rotation_at(t))
        r_safe = np.where(finite, r, 7000.0)
        r_gcrs_au = mxv(rotation, r_safe / AU_KM)
        geocentric = Geocentric(r_gcrs_au, t=t)
        lat, lon = wgs84.latlon_of(geocentric)
        height_km = wgs84.height_of(geocentric).km
        ok_height = finite & np.isfinite(height_km) & (height_km >= 0) & (height_km <= MAX_HEIGHT_KM)
        has_position = (err == 0) & ok_height
        without = []
        for k in np.nonzero(~has_position)[0]:
            if err[k] != 0:
                reason = f'SGP4 error {err[k]}'
            elif not finite[k] or not np.isfinite(height_km[k]):
                reason = 'no finite state'
            elif height_km[k] < 0:
                reason = 'height below 0'
            else:
                reason = f'height {height_km[k]:.3e} km'
            without.append([int(ids[k]), reason])
        speed_kmh = np.linalg.norm(np.where(finite, v, 0.0), axis=0) * 3600.0
        sun_km = sun_vector_km(when)
        sunlit = sunlit_flags(r_safe, sun_km)

        # Geoposition sample: Skyfield's EarthSatellite API, one satellite at a time.
        geo = []
        for k in np.nonzero(has_position)[0]:
            noradId = int(ids[k])
            if noradId not in geo_ids:
                continue
            _, satrec, line1, line2, name = catalogue[noradId]
            es = EarthSatellite(line1, line2, name, TS)
            g = es.at(t)
            glat, glon = wgs84.latlon_of(g)
            gh = wgs84.height_of(g).km
            geo.append({'noradId': noradId, 'latitude': glat.degrees, 'longitude': glon.degrees, 'altitude': gh})
            self_check['maxLatLonDiff'] = max(self_check['maxLatLonDiff'], abs(glat.degrees - lat.degrees[k]),
                                              abs((glon.degrees - lon.degrees[k] + 180) % 360 - 180))
            self_check['maxHeightDiffKm'] = max(self_check['maxHeightDiffKm'], abs(gh - height_km[k]))

        out_observers = []
        teme_of_gcrs = TEME.rotation_at(t)
        for oi, observer in enumerate(observers):
            place = topos[oi]
            obs_gcrs_au = place.at(t).position.au
            obs_teme_km = mxv(teme_of_gcrs, obs_gcrs_au) * AU_KM
            relative = Geometric(r_gcrs_au - obs_gcrs_au[:, None], t=t, center=place)
            alt, az, dist = relative.altaz()
            el_deg = alt.degrees
            az_deg = az.degrees % 360.0
            range_km = dist.km
            listed = []
            for k in np.nonzero(has_position & (el_deg >= lowest))[0]:
                listed.append({
                    'noradId': int(ids[k]),
                    'elevation': float(el_deg[k]),
                    'azimuth': float(az_deg[k]),
                    'range': float(range_km[k]),
                    'altitude': float(height_km[k]),
                    'latitude': float(lat.degrees[k]),
                    'longitude': float(lon.degrees[k]),
                    'velocityKmHs': float(speed_kmh[k]),
                    'sunlit': sunlit[k],
                    'phaseAngle': phase_angle_deg(r_safe[:, k], obs_teme_km, sun_km),
                })
            # Self-check: Skyfield's per-satellite API for a few of the listed satellites.
            for item in listed[:: max(1, len(listed) // 5)][:5]:
                _, satrec, line1, line2, name = catalogue[item['noradId']]
                es = EarthSatellite(line1, line2, name, TS)
                a2, z2, d2 = (es - place).at(t).altaz()
                self_check['maxElevationDiff'] = max(self_check['maxElevationDiff'], abs(a2.degrees - item['elevation']))
                self_check['maxAzimuthDiff'] = max(self_check['maxAzimuthDiff'],
                                                   abs((z2.degrees - item['azimuth'] + 180) % 360 - 180))
                self_check['maxRangeDiffKm'] = max(self_check['maxRangeDiffKm'], abs(d2.km - item['range']))
                self_check['compared'] += 1
            out_observers.append({'sunAltitudeDeg': sun_altitude_deg(when, observer), 'satellites': listed})

        out_instants.append({
            'instant': text,
            'withPosition': int(has_position.sum()),
            'withoutPosition': without,
            'geo': geo,
            'observers': out_observers,
        })
    json.dump({'satellites': len(ids), 'instants': out_instants, 'selfCheck': self_check}, sys.stdout)


if __name__ == '__main__':
    main()
