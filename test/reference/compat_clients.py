"""Replays the calls of real clients of N2YO, Open Notify and wheretheiss.at against sattrack.

Usage: compat_clients.py BASE_URL SCENARIO LAT LON ALT

BASE_URL is the service on loopback (http://127.0.0.1:PORT); nothing else is ever contacted.
SCENARIO is `fresh` (the data gives positions now: every client must get its answers) or
`stale` (they do not: every client must see an error, in its API's shape).

Each block below does what one published client does, as read in its source: the same HTTP
library (requests, aiohttp, urllib, from Debian), the same URL building (f-strings of floats,
`%f`, the key glued to the path, trailing slashes, params), the same parsing (`resp.json()`,
which in aiohttp refuses any media type but application/json) and the same field reads with the
types the client relies on (dacite dataclasses declared from N2YO's documented types, as
n2yo-api-wrapper declares them). Nothing of the clients' code is copied: the calls are written
again from what they send and read. Prints one JSON object with what each client got, for the
test (test/e2e/compat-clients.test.ts) to compare with sattrack's native routes.

Independent references are computed here too, from the elements the compatible routes serve:
Skyfield (topocentric RA/Dec, look angles, passes above 10° with find_events) and PyEphem (the
Sun's sub-solar point). Like satellite.js, both take UT1 = UTC.
"""
import asyncio
import json
import sys
import time
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from typing import List, Optional

import aiohttp
import dacite
import ephem
import requests
from skyfield.api import EarthSatellite, load, wgs84

BASE, SCENARIO = sys.argv[1], sys.argv[2]
LAT, LON, ALT = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
KEY = "ANY-KEY-1234"
N2YO = BASE + "/rest/v1/satellite/"
ISS = 25544
TS = load.timescale(builtin=True, delta_t=32.184 + 37.0)
out = {}


def second():
    return int(time.time())


def timed(fn):
    """Calls fn, with the Unix seconds before and after: the compatible routes compute from the current second."""
    before = second()
    value = fn()
    return {"before": before, "after": second(), "value": value}


def attempt(fn):
    """What a client sees: its value, or the exception it raises."""
    try:
        return {"ok": True, "value": fn()}
    except Exception as error:  # noqa: BLE001 - what the client would raise is the point
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}


# ---------------------------------------------------------------------------
# N2YO: the `n2yo` package (facorazza/n2yo-api): requests, path + params={'apiKey': key}, f-strings of floats


def n2yo_package():
    params = {"apiKey": KEY}
    got = {}
    r = requests.get(f"{N2YO}tle/{ISS}", params=params).json()
    got["tle"] = {"transactionscount": r["info"]["transactionscount"], "info": r["info"], "tle": r["tle"]}
    r = timed(lambda: requests.get(f"{N2YO}positions/{ISS}/{LAT}/{LON}/{ALT}/2", params=params).json())
    positions = r["value"]["positions"]
    got["positions"] = {
        "before": r["before"],
        "after": r["after"],
        "positions": [[p["satlatitude"], p["satlongitude"], p["sataltitude"]] for p in positions],
        "azels": [[p["azimuth"], p["elevation"]] for p in positions],
        "radecs": [[p["ra"], p["dec"]] for p in positions],
        "timestamps": [p["timestamp"] for p in positions],
    }
    for kind, last in (("visualpasses", 300), ("radiopasses", 10)):
        r = timed(lambda: requests.get(f"{N2YO}{kind}/{ISS}/{LAT}/{LON}/{ALT}/2/{last}", params=params).json())
        got[kind] = {"before": r["before"], "after": r["after"], "info": r["value"]["info"], "passes": r["value"]["passes"] if "passes" in r["value"].keys() else []}
    # get_above's defaults: search_radius=90, category_id=N2YOSatelliteCategory.All (a plain class attribute, 0).
    r = timed(lambda: requests.get(f"{N2YO}above/{LAT}/{LON}/{ALT}/90/0", params=params).json())
    got["above"] = {"before": r["before"], "after": r["after"], "info": r["value"]["info"], "above": r["value"]["above"] if "above" in r["value"].keys() else []}
    return got


# ---------------------------------------------------------------------------
# N2YO: the first `n2yo` releases: "%d/%f/%f/%f/%d" (41.702000), positions without the key


def n2yo_printf():
    got = {}
    r = timed(lambda: requests.get(N2YO + "positions/%d/%f/%f/%f/%d" % (ISS, LAT, LON, ALT, 3)).json())
    got["transactionscount"] = r["value"]["info"]["transactionscount"]
    # (That client then reads pos['satlaltitude'], a misspelling N2YO never sent: it fails on N2YO too.)
    got["positions"] = {"before": r["before"], "after": r["after"], "latlng": [[p["satlatitude"], p["satlongitude"]] for p in r["value"]["positions"]], "timestamps": [p["timestamp"] for p in r["value"]["positions"]]}
    r = requests.get(N2YO + "radiopasses/%d/%f/%f/%f/%d/%d" % (ISS, LAT, LON, ALT, 1, 0), params={"apiKey": KEY}).json()
    got["radiopasses"] = len(r["passes"]) if "passes" in r.keys() else None
    r = requests.get(N2YO + "above/%f/%f/%f/%d/%d" % (LAT, LON, ALT, 70, 0), params={"apiKey": KEY}).json()
    got["above_satcount"] = r["info"]["satcount"]
    return got


# ---------------------------------------------------------------------------
# N2YO: hand-built URLs as N2YO documents them (the key glued to the path), e.g. SatTracker scripts


def n2yo_handbuilt():
    got = {}
    got["tle"] = requests.get(N2YO + "tle/" + str(ISS) + "&apiKey=" + KEY).json()
    line1, line2 = got["tle"]["tle"].split("\r\n")
    got["lines"] = [line1, line2]
    r = requests.get(N2YO + "radiopasses/" + str(ISS) + "/" + str(LAT) + "/" + str(LON) + "/" + str(int(ALT)) + "/1/5/&apiKey=" + KEY)
    got["radiopasses_status"] = r.status_code
    got["radiopasses"] = r.json()
    return got


# ---------------------------------------------------------------------------
# N2YO: n2yo-api-wrapper (g1ampy): a trailing slash + params, and dacite into typed dataclasses


@dataclass
class Info:
    transactionscount: int
    category: Optional[str] = None
    satid: Optional[int] = None
    satcount: Optional[int] = None
    satname: Optional[str] = None
    passescount: Optional[int] = None


@dataclass
class Position:
    satlatitude: float
    satlongitude: float
    azimuth: float
    elevation: float
    ra: float
    dec: float
    timestamp: int


@dataclass
class VisualPass:
    startAz: float
    startAzCompass: str
    startEl: float
    startUTC: int
    maxAz: float
    maxAzCompass: str
    maxEl: float
    maxUTC: int
    endAz: float
    endAzCompass: str
    endEl: float
    endUTC: int
    mag: float
    duration: int


@dataclass
class RadioPass:
    startAz: float
    startAzCompass: str
    startUTC: int
    maxAz: float
    maxAzCompass: str
    maxEl: float
    maxUTC: int
    endAz: float
    endAzCompass: str
    endUTC: int


@dataclass
class Above:
    satid: int
    intDesignator: str
    satname: str
    launchDate: str
    satlat: float
    satlng: float
    satalt: float


@dataclass
class TleData:
    info: Info
    tle: str


@dataclass
class PositionsData:
    info: Info
    positions: List[Position]


@dataclass
class VisualPassesData:
    info: Info
    passes: List[VisualPass]


@dataclass
class RadioPassesData:
    info: Info
    passes: List[RadioPass]


@dataclass
class AboveData:
    info: Info
    above: List[Above]


def n2yo_wrapper():
    params = {"apiKey": KEY}

    def call(path, model):
        data = requests.get(url=f"{N2YO}{path}/", params=params).json()
        if data.get("error") == "Invalid API Key!":
            raise RuntimeError("InvalidApiKey")
        return dacite.from_dict(data_class=model, data=data)

    got = {}
    got["tle_satid"] = call(f"tle/{ISS}", TleData).info.satid
    got["positions"] = len(call(f"positions/{ISS}/{LAT}/{LON}/{ALT}/5", PositionsData).positions)
    # Ten days, no minimum: passes with their mag and duration as typed values.
    got["visual"] = [p.__dict__ for p in call(f"visualpasses/{ISS}/{LAT}/{LON}/{ALT}/10/0", VisualPassesData).passes]
    got["radio"] = len(call(f"radiopasses/{ISS}/{LAT}/{LON}/{ALT}/10/0", RadioPassesData).passes)
    got["above"] = len(call(f"above/{LAT}/{LON}/{ALT}/90/0", AboveData).above)
    got["above_starlink"] = [a.satid for a in call(f"above/{LAT}/{LON}/{ALT}/90/52", AboveData).above]
    return got


# ---------------------------------------------------------------------------
# N2YO: n2yoasync as Home Assistant's hasatellitetracker uses it: aiohttp, resp.json(), any "error" key raises


class N2YOSatelliteCategory(Enum):
    All = 0
    Starlink = 52


class AuthenticationError(Exception):
    pass


async def n2yoasync_hass():
    got = {}
    async with aiohttp.ClientSession() as session:

        async def get_api(endpoint):
            async with session.get(f"{N2YO}{endpoint}", params={"apiKey": KEY}) as resp:
                response = await resp.json()  # aiohttp: ContentTypeError unless application/json
            if response.get("error"):
                raise AuthenticationError(response["error"])
            return response

        # Config flow: the key is checked with the ISS's TLE.
        got["config_tle"] = (await get_api(f"tle/{ISS}"))["info"]["satid"]
        # A location tracker: get_above(search_radius=90, category_id=N2YOSatelliteCategory.All): the enum member in the URL.
        above = (await get_api(f"above/{LAT}/{LON}/{ALT}/{90}/{N2YOSatelliteCategory.All}")).get("above", [])
        got["location_sensor"] = {"state": len(above), "attributes": [[s["satid"], s["satname"], s["launchDate"], s["satlat"], s["satlng"], s["satalt"]] for s in above[:5]]}
        # A satellite tracker: positions (1 s), visual passes (10 days, min_visibility 300), radio passes (10 days, min_elevation 0).
        positions = await get_api(f"positions/{ISS}/{LAT}/{LON}/{ALT}/1")
        got["device_tracker"] = [positions["positions"][0]["satlatitude"], positions["positions"][0]["satlongitude"]]
        visual = (await get_api(f"visualpasses/{ISS}/{LAT}/{LON}/{ALT}/10/300")).get("passes", [])
        visual = [p for p in visual if p["duration"] > 300]
        radio = (await get_api(f"radiopasses/{ISS}/{LAT}/{LON}/{ALT}/10/0")).get("passes", [])
        got["visual_sensors"] = [
            {
                "state": p["duration"],
                "quality": "High" if p["maxEl"] > 65 else "Moderate" if p["maxEl"] > 45 else "Low",
                "pass_start": datetime.fromtimestamp(p["startUTC"], timezone.utc).strftime("%d-%b-%Y %I:%M %p"),
                "pass_peak_unix": p["maxUTC"],
                "pass_end_unix": p["endUTC"],
                "start_compass": p["startAzCompass"],
                "end_compass": p["endAzCompass"],
            }
            for p in visual[:5]
        ]
        got["radio_sensors"] = [
            {
                "state": p["endUTC"] - p["startUTC"],
                "compasses": [p["startAzCompass"], p["maxAzCompass"], p["endAzCompass"]],
                "max_elevation": p["maxEl"],
                "azimuths": [p["startAz"], p["maxAz"], p["endAz"]],
            }
            for p in radio[:5]
        ]
        # The "10 minute pass warning" binary sensors read the first pass's startUTC and maxEl.
        got["warning_inputs"] = [radio[0]["startUTC"], radio[0]["maxEl"]] if radio else None
    return got


async def n2yoasync_stale():
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{N2YO}positions/{ISS}/{LAT}/{LON}/{ALT}/1", params={"apiKey": KEY}) as resp:
            status = resp.status
            response = await resp.json()
        return {"status": status, "raises": bool(response.get("error")), "error": response.get("error")}


# ---------------------------------------------------------------------------
# Open Notify: pyiss (and Home Assistant's ISS integration through it), and the everyday scripts


def pyiss_like():
    api = BASE + "/"
    got = {}

    def current_location():
        data = requests.get(api + "iss-now.json")
        if data.status_code == 200:
            return data.json()["iss_position"]
        raise Exception("Error server n {}".format(data.status_code))

    def pass_times(latitude, longitude, altitude=None, number=None):
        payload = {"lat": latitude, "lon": longitude}
        if altitude is not None:
            payload["alt"] = altitude
        if number is not None:
            payload["n"] = number
        data = requests.get(api + "iss-pass.json", params=payload)
        if data.status_code == 200:
            return data.json()["response"]
        raise Exception("Error server n {}".format(data.status_code))

    def people_in_space():
        data = requests.get(api + "astros.json")
        if data.status_code == 200:
            return data.json()
        raise Exception("Error server n {}".format(data.status_code))

    got["current_location"] = attempt(current_location)
    got["people"] = attempt(people_in_space)
    got["number_of_people_in_space"] = attempt(lambda: people_in_space()["number"])
    got["is_ISS_above"] = attempt(lambda: len(pass_times(LAT, LON, None, 2)) == 1)
    got["next_rise"] = attempt(lambda: datetime.fromtimestamp(pass_times(LAT, LON, None, 2)[0]["risetime"], timezone.utc).isoformat())
    # Home Assistant's sensor: the number of people as its state, lat/long as attributes (strings).
    if got["current_location"]["ok"] and got["people"]["ok"]:
        location = got["current_location"]["value"]
        got["home_assistant"] = {"state": got["people"]["value"]["number"], "attributes": {"lat": location.get("latitude"), "long": location.get("longitude")}}
    # The everyday script: float(data["iss_position"]["latitude"]) with raise_for_status().
    def script():
        response = requests.get(url=api + "iss-now.json")
        response.raise_for_status()
        data = response.json()
        return [float(data["iss_position"]["latitude"]), float(data["iss_position"]["longitude"]), data["timestamp"]]

    got["script"] = attempt(script)
    return got


def iss_pass_reference(tle, start_seconds, days, passes_served):
    """Skyfield on the elements served, for the passes an Open Notify client got (PyEphem, which the original
    used, ignores the observer's horizon in next_pass in the version Debian ships, 4.1.4):
    - "passes": the passes above 10° its find_events finds (it places each event to within ~13 s: on 293 ISS
      passes, its rise and set came up to 12.5 s after instants where its own altitude was 10.000 ± 0.002°);
    - "altitudes": for each pass served, its altitude (degrees) at the served risetime and a second later, and at
      risetime + duration and two seconds later: Open Notify cuts the rise down to a whole second and the
      duration too, so the 10° crossings lie between them."""
    sat = EarthSatellite(tle["line1"], tle["line2"], tle["header"], TS)
    topos = wgs84.latlon(LAT, LON, elevation_m=100)
    t0 = TS.from_datetime(datetime.fromtimestamp(start_seconds, timezone.utc))
    times, events = sat.find_events(topos, t0, t0 + days, altitude_degrees=10.0)
    passes, rise = [], None
    for t, event in zip(times, events):
        if event == 0:
            rise = t
        elif event == 2 and rise is not None:
            passes.append({"risetime": rise.utc_datetime().timestamp(), "duration": (t - rise) * 86400})
            rise = None

    def altitude(seconds):
        t = TS.from_datetime(datetime.fromtimestamp(seconds, timezone.utc))
        return float((sat - topos).at(t).altaz()[0].degrees)

    altitudes = []
    for p in passes_served:
        rise_s, set_s = p["risetime"], p["risetime"] + p["duration"]
        altitudes.append({"rise": [altitude(rise_s), altitude(rise_s + 1)], "set": [altitude(set_s), altitude(set_s + 2)]})
    return {"passes": passes, "altitudes": altitudes}


# ---------------------------------------------------------------------------
# wheretheiss.at: scripts with urllib and requests (str(float) and "%.6f, %.6f" coordinates)


def wheretheiss_like():
    api = BASE + "/v1/"
    got = {}
    with urllib.request.urlopen(api + "satellites/25544") as url:
        data = json.loads(url.read().decode())
    got["position"] = data
    got["realtime"] = datetime.fromtimestamp(data["timestamp"], timezone.utc).isoformat()
    with urllib.request.urlopen(api + "coordinates/" + str(data["latitude"]) + "," + str(data["longitude"])) as url:
        ground = json.loads(url.read().decode())
    got["coordinates"] = ground
    got["country"] = "None" if ground["country_code"] == "??" else ground["country_code"]
    spaced = requests.get(api + "coordinates/%.6f, %.6f" % (48.8566, 2.3522)).json()
    got["coordinates_spaced"] = [spaced["timezone_id"], spaced["country_code"], spaced["map_url"]]
    now = second()
    stamps = ",".join(str(now + i * 330) for i in range(9))
    got["track"] = requests.get(api + f"satellites/25544/positions?timestamps={stamps}&units=kilometers").json()
    got["miles"] = requests.get(api + "satellites/25544?units=miles").json()
    tle = requests.get(api + "satellites/25544/tles").json()
    got["tles"] = tle
    # Open Notify's own TLE updater read exactly this: tle_timestamp, requested_timestamp, header, line1, line2.
    got["tle_times"] = [datetime.fromtimestamp(tle["tle_timestamp"], timezone.utc).isoformat(), datetime.fromtimestamp(tle["requested_timestamp"], timezone.utc).isoformat()]
    return got


def stale_wheretheiss():
    r = requests.get(BASE + "/v1/satellites/25544")
    return {"status": r.status_code, "body": r.json()}


# ---------------------------------------------------------------------------
# Independent references on the elements served


def skyfield_look(line1, line2, stamps):
    """Topocentric RA/Dec of date, azimuth and elevation from Skyfield for each Unix second."""
    sat = EarthSatellite(line1, line2, "SAT", TS)
    topos = wgs84.latlon(LAT, LON, elevation_m=ALT)
    out = []
    for s in stamps:
        t = TS.from_datetime(datetime.fromtimestamp(s, timezone.utc))
        topocentric = (sat - topos).at(t)
        ra, dec, _ = topocentric.radec(epoch="date")
        alt, az, _ = topocentric.altaz()
        out.append({"ra": ra.hours * 15, "dec": dec.degrees, "azimuth": az.degrees, "elevation": alt.degrees})
    return out


def pyephem_subsolar(seconds):
    """The point with the Sun overhead: latitude = the Sun's declination, longitude = its RA less Greenwich sidereal time."""
    observer = ephem.Observer()
    observer.lon = "0"
    observer.lat = "0"
    observer.pressure = 0
    observer.date = datetime.fromtimestamp(seconds, timezone.utc).replace(tzinfo=None)
    sun = ephem.Sun(observer)
    lon = (float(sun.g_ra) - float(observer.sidereal_time())) * 180 / 3.141592653589793
    return {"latitude": float(sun.g_dec) * 180 / 3.141592653589793, "longitude": lon % 360}


if SCENARIO == "fresh":
    out["n2yo"] = n2yo_package()
    out["n2yo_printf"] = n2yo_printf()
    out["n2yo_handbuilt"] = n2yo_handbuilt()
    out["n2yo_wrapper"] = n2yo_wrapper()
    out["n2yoasync"] = asyncio.run(n2yoasync_hass())
    out["pyiss"] = pyiss_like()
    iss_pass = timed(lambda: requests.get(BASE + "/iss-pass.json", params={"lat": LAT, "lon": LON, "n": 10}).json())
    out["iss_pass"] = iss_pass
    out["wheretheiss"] = wheretheiss_like()
    tles = out["wheretheiss"]["tles"]
    out["iss_pass_skyfield"] = iss_pass_reference(tles, iss_pass["value"]["request"]["datetime"], 5, iss_pass["value"]["response"])
    lines = out["n2yo"]["tle"]["tle"].split("\r\n")
    out["skyfield"] = skyfield_look(lines[0], lines[1], out["n2yo"]["positions"]["timestamps"])
    out["subsolar"] = pyephem_subsolar(out["wheretheiss"]["position"]["timestamp"])
else:
    out["n2yoasync"] = asyncio.run(n2yoasync_stale())
    out["n2yo_tle"] = requests.get(N2YO + f"tle/{ISS}&apiKey={KEY}").json()
    out["pyiss"] = pyiss_like()
    out["wheretheiss"] = stale_wheretheiss()

print(json.dumps(out))
