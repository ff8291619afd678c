"""Reads the service's CelesTrak-compatible feed the way real clients do.

Usage: feed_clients.py BASE_URL CACHE_DIR QUERY

Loads BASE_URL/NORAD/elements/gp.php?QUERY&FORMAT=3le with Skyfield's
load.tle_file (its downloader and TLE parser, cache in CACHE_DIR) and
...&FORMAT=csv with python-sgp4's omm.parse_csv + omm.initialize, and prints
one JSON object: for each client, every satellite's name, catalog number and
SGP4 elements as the client initialised them (angles in radians, mean motion
in rad/min, epoch as a Julian date split in two).
"""
import io
import json
import sys
import urllib.request

from skyfield.api import Loader
from sgp4 import omm
from sgp4.api import Satrec


def elements(satrec):
    return {
        'satnum': satrec.satnum,
        'jdsatepoch': satrec.jdsatepoch,
        'jdsatepochF': satrec.jdsatepochF,
        'inclo': satrec.inclo,
        'nodeo': satrec.nodeo,
        'ecco': satrec.ecco,
        'argpo': satrec.argpo,
        'mo': satrec.mo,
        'no_kozai': satrec.no_kozai,
        'bstar': satrec.bstar,
        'ndot': satrec.ndot,
        'nddot': satrec.nddot,
    }


def main():
    base, cache_dir, query = sys.argv[1], sys.argv[2], sys.argv[3]
    url = f'{base}/NORAD/elements/gp.php?{query}'

    load = Loader(cache_dir, verbose=False)
    satellites = load.tle_file(f'{url}&FORMAT=3le', reload=True, filename='feed.3le')
    skyfield = [{'name': s.name, **elements(s.model)} for s in satellites]

    with urllib.request.urlopen(f'{url}&FORMAT=csv') as response:
        text = response.read().decode('utf-8')
    sgp4 = []
    for fields in omm.parse_csv(io.StringIO(text, newline='')):
        satrec = Satrec()
        omm.initialize(satrec, fields)
        sgp4.append({'name': fields['OBJECT_NAME'], **elements(satrec)})

    json.dump({'skyfield': skyfield, 'sgp4': sgp4}, sys.stdout)


main()
