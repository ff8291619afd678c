/**
 * How bright a satellite looks: its standard magnitude (an estimate per
 * satellite) and its apparent magnitude from range and phase angle.
 *
 * Convention (McCants / Molczan, "standard magnitude"): the visual magnitude at
 * 1,000 km range and 90° phase angle (half illuminated), as in McCants' qs.mag
 * (http://mmccants.org/tles/mccdesc.html) and Heavens-Above
 * (Molczan, SeeSat-L, Sep 2004: http://www.satobs.org/seesat/Sep-2004/0131.html).
 * The apparent magnitude is that of a diffusely reflecting (Lambertian) sphere,
 * normalised to the standard magnitude at 1,000 km and 90° (Matson, SeeSat-L,
 * Apr 2001: http://www.satobs.org/seesat/Apr-2001/0313.html):
 *
 *   m = std − 15 + 5·log10(range_km) − 2.5·log10(sin φ + (π − φ)·cos φ)
 *
 * where φ is the phase angle (Sun–satellite–observer; 0 = full phase). The
 * Lambertian sphere's phase function is F(φ) = (sin φ + (π − φ) cos φ) / π; at
 * 90° it is 1/π, so the π cancels in the ratio F(φ)/F(90°) and the formula gives
 * std exactly at 1,000 km and 90°.
 *
 * Real satellites are neither spheres nor Lambertian: published magnitudes scatter
 * by ±1–2 around such predictions (Molczan 2004; flares, attitude), so the
 * estimates here are for "can it be seen with the naked eye", not photometry.
 *
 * Pure: no clock, no I/O. Units are in the names.
 */
import type { Catalog, Satellite } from '../catalog/catalog.ts'
import { orbitClass } from '../catalog/elements.ts'
import type { Vector3 } from './position.ts'

/** The range at which a standard magnitude is defined, km. */
export const STANDARD_RANGE_KM = 1000

/**
 * The default faintest apparent magnitude counted as visible to the naked eye.
 * Bortle's scale (Sky & Telescope, Feb 2001) puts the naked-eye limit for fixed
 * stars at 5.5–6.0 in a suburban sky (class 5), 5.0–5.5 in a bright suburban sky
 * (class 6) and 4.5–5.0 at the suburban/urban transition (class 7). A satellite is
 * a moving point seen for a few minutes, and its predicted magnitude is uncertain
 * by ±1 or more (see above): 4.5 keeps a magnitude of margin below a suburban sky's
 * limit, so what is called visible can be found by most people outside city centres.
 */
export const DEFAULT_MAGNITUDE_LIMIT = 4.5
/** The range accepted for a magnitude limit: brighter than anything in the sky but the Moon and Sun, to the darkest skies' naked-eye limit (Bortle class 1, 7.6–8.0). */
export const MIN_MAGNITUDE_LIMIT = -5
export const MAX_MAGNITUDE_LIMIT = 8

/** Where a standard magnitude comes from. */
export type MagnitudeBasis = 'published' | 'family' | 'class' | 'orbit'

export interface StandardMagnitude {
  /** Visual magnitude at 1,000 km and 90° phase. */
  magnitude: number
  basis: MagnitudeBasis
}

/**
 * Objects with a published (or directly derived) standard magnitude. 'v': from
 * visual observations as published; 'd': derived here from a published apparent
 * magnitude or size, as explained. Only the primary catalogue entry of a station
 * carries its light (modules and docked vehicles, listed separately in the
 * catalogue, get the defaults below).
 */
export const PUBLISHED_STANDARD_MAGNITUDES: ReadonlyMap<number, { name: string; magnitude: number; source: string }> = new Map([
  [
    25544,
    {
      name: 'ISS (ZARYA)',
      magnitude: -1.8,
      source:
        "v: the standard magnitude used for the ISS by Heavens-Above-style predictions, as given in the accepted answer of https://astronomy.stackexchange.com/questions/28744 and in https://github.com/skyfielders/python-skyfield/issues/660",
    },
  ],
  [
    48274,
    {
      name: 'CSS (TIANHE)',
      magnitude: -0.3,
      source:
        'd: the ISS value scaled by cross-section, the completed Tiangong being about a quarter of the ISS (https://spaceweatherarchive.com/2021/05/07/chinas-new-space-station-is-visible-from-earth/): -1.8 + 2.5·log10(4) = -0.3; consistent with Heavens-Above predicting +0.8 at 8° elevation (about 1,540 km; https://britastro.org/forums/topic/tiangong-space-station-sighting-3), i.e. -0.1 at 90° phase',
    },
  ],
  [
    20580,
    {
      name: 'HST',
      magnitude: 2.3,
      source:
        'd: "typically shines at magnitude +1 when straight overhead" at ~540 km (https://sen.com/news/hunting-hubble-how-to-spot-the-space-telescope): 1 - 5·log10(0.54) = 2.3 at 90° phase',
    },
  ],
  [
    10967,
    {
      name: 'SEASAT 1',
      magnitude: 3.9,
      source: 'v: Heavens-Above, from more than 500 observations by R. Eberst (Molczan, http://www.satobs.org/seesat/Sep-2004/0131.html)',
    },
  ],
])

/**
 * Defaults by name family: constellations whose brightness has been measured.
 * Tested in order against the catalogue name.
 */
export const FAMILY_STANDARD_MAGNITUDES: readonly { pattern: RegExp; family: string; magnitude: number; source: string }[] = [
  {
    pattern: /^STARLINK/,
    family: 'STARLINK',
    magnitude: 7.0,
    source:
      'Mallama & Respler 2022 (arXiv:2210.17268): characteristic magnitudes overhead at ~550 km 4.7 (Original), 6.2 (VisorSat), 5.5 (Post-VisorSat), i.e. 6.0-7.5 at 1,000 km; Mallama et al. 2023 (arXiv:2309.14152): Gen 2 Mini 7.87 at 1,000 km. 7.0 between them',
  },
  {
    pattern: /^ONEWEB/,
    family: 'ONEWEB',
    magnitude: 7.6,
    source: 'about eighth magnitude at 1,200 km (SpaceNews, July 2020: https://spacenews.com/onewebs-revival-worries-astronomers/): 8 - 5·log10(1.2) = 7.6',
  },
]

/**
 * Defaults by class, from the size rule of thumb: a white sphere of 1 m² cross-section
 * has standard magnitude about +6.4 (Gimle, SeeSat-L, Oct 2008:
 * http://www.satobs.org/seesat/Oct-2008/0094.html; rm ≈ 6.0 − 2.5·log10(area·albedo),
 * http://www.satobs.org/seesat/Oct-1998/0172.html), so std ≈ 6.4 − 2.5·log10(area m²).
 */
export const CLASS_STANDARD_MAGNITUDES = {
  /** "R/B" in the name: an upper stage, ~10 m² (e.g. 2.4 m × 6.5 m seen broadside, ~15 m²; end-on far less). */
  rocketBody: 4.0,
  /** "DEB" in the name: fragments, typically well under 1 m²; 0.25 m² → 7.9. */
  debris: 8.0,
} as const

/**
 * Payloads by orbit class, by the same rule. LEO: 6.0 (~1.5 m²): most payloads in
 * low orbit now are small satellites (a 1 m bus, small panels; cubesats far less),
 * so a large one (Sentinel, NOAA 20: 3-5) is underestimated and may be missed,
 * rather than a small one shown as visible. MEO/HEO ~10 m² (navigation satellites
 * with panels), GEO ~40 m² (communication satellites with panels).
 */
export const ORBIT_STANDARD_MAGNITUDES = { LEO: 6.0, MEO: 4.0, HEO: 4.0, GEO: 2.4 } as const

const ROCKET_BODY = /\bR\/B\b/
const DEBRIS = /\bDEB\b/

/** The estimated standard magnitude of a satellite: published value, else name family, else class from the name, else orbit class. */
export function standardMagnitude(satellite: Pick<Satellite, 'noradId' | 'name' | 'orbitalParams'>): StandardMagnitude {
  const published = PUBLISHED_STANDARD_MAGNITUDES.get(satellite.noradId)
  if (published) return { magnitude: published.magnitude, basis: 'published' }
  const name = satellite.name.toUpperCase()
  for (const f of FAMILY_STANDARD_MAGNITUDES) if (f.pattern.test(name)) return { magnitude: f.magnitude, basis: 'family' }
  if (ROCKET_BODY.test(name)) return { magnitude: CLASS_STANDARD_MAGNITUDES.rocketBody, basis: 'class' }
  if (DEBRIS.test(name)) return { magnitude: CLASS_STANDARD_MAGNITUDES.debris, basis: 'class' }
  return { magnitude: ORBIT_STANDARD_MAGNITUDES[orbitClass(satellite.orbitalParams)], basis: 'orbit' }
}

const STANDARD_MAGNITUDES = Symbol('standard magnitudes')

/** Every satellite's standard magnitude, by index in `catalog.satellites`, made once per catalogue (~10 ms for 12k). */
export function standardMagnitudes(catalog: Catalog): Float64Array {
  return catalog.derived(STANDARD_MAGNITUDES, (c) => Float64Array.from(c.satellites, (s) => standardMagnitude(s).magnitude))
}

/**
 * The Lambertian sphere's brightness at phase angle φ relative to 90°:
 * sin φ + (π − φ) cos φ (π at full phase, 1 at 90°, 0 at new phase).
 */
export function lambertPhaseRatio(phaseAngleRad: number): number {
  const phi = Math.min(Math.PI, Math.max(0, phaseAngleRad))
  return Math.sin(phi) + (Math.PI - phi) * Math.cos(phi)
}

/** Below this the satellite is all but new (φ within ~0.5° of 180°): the magnitude is taken at this ratio (+15 mag). */
const MIN_PHASE_RATIO = 1e-6

/** Apparent visual magnitude of a satellite of standard magnitude `standardMag` at `rangeKm` and phase angle `phaseAngleRad`. */
export function apparentMagnitude(standardMag: number, rangeKm: number, phaseAngleRad: number): number {
  const ratio = Math.max(MIN_PHASE_RATIO, lambertPhaseRatio(phaseAngleRad))
  return standardMag + 5 * Math.log10(rangeKm / STANDARD_RANGE_KM) - 2.5 * Math.log10(ratio)
}

/**
 * The phase angle (radians, 0..π): the angle at the satellite between the
 * directions to the Sun and to the observer. The three positions in one frame
 * (any), km.
 */
export function phaseAngleRad(satelliteKm: Vector3, observerKm: Vector3, sunKm: Vector3): number {
  const ax = sunKm.x - satelliteKm.x
  const ay = sunKm.y - satelliteKm.y
  const az = sunKm.z - satelliteKm.z
  const bx = observerKm.x - satelliteKm.x
  const by = observerKm.y - satelliteKm.y
  const bz = observerKm.z - satelliteKm.z
  // atan2 of |a × b| and a · b: accurate at every angle, unlike acos near 0 and π.
  const cx = ay * bz - az * by
  const cy = az * bx - ax * bz
  const cz = ax * by - ay * bx
  return Math.atan2(Math.sqrt(cx * cx + cy * cy + cz * cz), ax * bx + ay * by + az * bz)
}

/**
 * `apparentMagnitude(standardMag, range, phaseAngleRad(...))` from plain numbers,
 * for the hundreds of entries of a /nearby answer: no objects, one logarithm
 * (m = std − 2.5·log10(ratio · 1000² / range²)). (dx, dy, dz): observer to
 * satellite; (sx, sy, sz): satellite to Sun; km, any one frame. Equal to the
 * plain form to rounding (test/domain/orbit/magnitude.test.ts).
 */
export function magnitudeFromVectors(standardMag: number, dx: number, dy: number, dz: number, sx: number, sy: number, sz: number): number {
  const range2 = dx * dx + dy * dy + dz * dz
  // Phase angle between satellite→Sun (s) and satellite→observer (−d).
  const cx = -(sy * dz - sz * dy)
  const cy = -(sz * dx - sx * dz)
  const cz = -(sx * dy - sy * dx)
  const phi = Math.atan2(Math.sqrt(cx * cx + cy * cy + cz * cz), -(sx * dx + sy * dy + sz * dz))
  const ratio = Math.max(MIN_PHASE_RATIO, Math.sin(phi) + (Math.PI - phi) * Math.cos(phi))
  return standardMag - 2.5 * Math.log10((ratio * STANDARD_RANGE_KM * STANDARD_RANGE_KM) / range2)
}

/**
 * A magnitude as answers give it and visibility is decided on: to 0.01 (the
 * estimates are good to ±1; more digits only lengthen answers of hundreds of entries).
 */
export function roundMagnitude(magnitude: number): number {
  return Math.round(magnitude * 100) / 100
}

/** The apparent magnitude of `satellite` from its position, the observer's and the Sun's (one frame, km). */
export function magnitudeAt(satellite: Pick<Satellite, 'noradId' | 'name' | 'orbitalParams'>, satelliteKm: Vector3, observerKm: Vector3, sunKm: Vector3): number {
  const rangeKm = Math.hypot(satelliteKm.x - observerKm.x, satelliteKm.y - observerKm.y, satelliteKm.z - observerKm.z)
  return apparentMagnitude(standardMagnitude(satellite).magnitude, rangeKm, phaseAngleRad(satelliteKm, observerKm, sunKm))
}
