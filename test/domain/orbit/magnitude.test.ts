/** Standard and apparent magnitudes (src/domain/orbit/magnitude.ts). */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { Satellite } from '../../../src/domain/catalog/catalog.ts'
import { orbitalParams } from '../../../src/domain/catalog/elements.ts'
import {
  apparentMagnitude,
  CLASS_STANDARD_MAGNITUDES,
  DEFAULT_MAGNITUDE_LIMIT,
  lambertPhaseRatio,
  magnitudeAt,
  magnitudeFromVectors,
  ORBIT_STANDARD_MAGNITUDES,
  phaseAngleRad,
  PUBLISHED_STANDARD_MAGNITUDES,
  standardMagnitude,
  standardMagnitudes,
} from '../../../src/domain/orbit/magnitude.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'

const DEG = Math.PI / 180

describe('apparentMagnitude', () => {
  test('is the standard magnitude at 1,000 km and 90° phase', () => {
    for (const std of [-1.8, 0, 4.5, 7.87]) expect(apparentMagnitude(std, 1000, 90 * DEG)).toBeCloseTo(std, 12)
  })

  test('inverse square of the range: 5 log10 per factor', () => {
    expect(apparentMagnitude(3, 2000, 90 * DEG) - 3).toBeCloseTo(5 * Math.log10(2), 12)
    // Matson's example (SeeSat-L, Apr 2001): std 5.5 at 1,600 km and 90° is 6.52.
    expect(apparentMagnitude(5.5, 1600, 90 * DEG)).toBeCloseTo(6.52, 2)
  })

  test('the Lambertian sphere: full phase is π times (2.5 log10 π = 1.24 mag) brighter than 90°, and dimmer past it', () => {
    expect(apparentMagnitude(0, 1000, 0)).toBeCloseTo(-2.5 * Math.log10(Math.PI), 12)
    expect(lambertPhaseRatio(0)).toBeCloseTo(Math.PI, 12)
    expect(lambertPhaseRatio(90 * DEG)).toBeCloseTo(1, 12)
    expect(lambertPhaseRatio(180 * DEG)).toBeCloseTo(0, 12)
    // F(φ)/F(90°) with F(φ) = ((π − φ) cos φ + sin φ)/π, written out.
    for (const deg of [10, 45, 60, 120, 150, 170]) {
      const phi = deg * DEG
      const F = (p: number) => ((Math.PI - p) * Math.cos(p) + Math.sin(p)) / Math.PI
      expect(apparentMagnitude(2, 1000, phi)).toBeCloseTo(2 - 2.5 * Math.log10(F(phi) / F(Math.PI / 2)), 10)
    }
  })

  test('brightens monotonically towards full phase and stays finite at new phase', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: Math.PI, noNaN: true }), fc.double({ min: 0, max: Math.PI, noNaN: true }), (a, b) => {
        const [lo, hi] = a < b ? [a, b] : [b, a]
        expect(apparentMagnitude(1, 800, lo)).toBeLessThanOrEqual(apparentMagnitude(1, 800, hi) + 1e-9)
      }),
    )
    expect(Number.isFinite(apparentMagnitude(1, 800, Math.PI))).toBe(true)
  })
})

describe('phaseAngleRad', () => {
  test('the angle at the satellite between the Sun and the observer', () => {
    const sat = { x: 0, y: 0, z: 0 }
    expect(phaseAngleRad(sat, { x: 1, y: 0, z: 0 }, { x: 1e8, y: 0, z: 0 })).toBeCloseTo(0, 12) // full phase
    expect(phaseAngleRad(sat, { x: 0, y: 500, z: 0 }, { x: 1e8, y: 0, z: 0 })).toBeCloseTo(Math.PI / 2, 12)
    expect(phaseAngleRad(sat, { x: -500, y: 0, z: 0 }, { x: 1e8, y: 0, z: 0 })).toBeCloseTo(Math.PI, 12) // in front of the Sun
    expect(phaseAngleRad({ x: 7000, y: 0, z: 0 }, { x: 6400, y: 0, z: 0 }, { x: 7000, y: 1.5e8, z: 0 })).toBeCloseTo(Math.PI / 2, 12)
  })

  test('does not depend on the frame: a rotation and translation of all three leaves it', () => {
    const v = fc.record({ x: fc.double({ min: -1e5, max: 1e5, noNaN: true }), y: fc.double({ min: -1e5, max: 1e5, noNaN: true }), z: fc.double({ min: -1e5, max: 1e5, noNaN: true }) })
    fc.assert(
      fc.property(v, v, v, fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }), (s, o, sun, a) => {
        fc.pre(Math.hypot(o.x - s.x, o.y - s.y, o.z - s.z) > 1 && Math.hypot(sun.x - s.x, sun.y - s.y, sun.z - s.z) > 1)
        const turn = (p: typeof s) => ({ x: p.x * Math.cos(a) - p.y * Math.sin(a) + 10, y: p.x * Math.sin(a) + p.y * Math.cos(a) - 20, z: p.z + 5 })
        expect(phaseAngleRad(turn(s), turn(o), turn(sun))).toBeCloseTo(phaseAngleRad(s, o, sun), 6)
      }),
    )
  })
})

function satellite(noradId: number, name: string, apogeeKm: number, perigeeKm = apogeeKm): Satellite {
  const a = 6378.135 + (apogeeKm + perigeeKm) / 2
  const e = (apogeeKm - perigeeKm) / (2 * a)
  const meanMotion = 86400 / (2 * Math.PI * Math.sqrt(a ** 3 / 398600.8))
  const params = orbitalParams({ inclinationDeg: 50, eccentricity: e, meanMotionRevPerDay: meanMotion } as any)
  return { noradId, name, orbitalParams: params } as Satellite
}

describe('magnitudeFromVectors (the fast form /nearby uses)', () => {
  test('equals apparentMagnitude with phaseAngleRad on the same geometry', () => {
    const km = fc.double({ min: -50_000, max: 50_000, noNaN: true })
    fc.assert(
      fc.property(fc.double({ min: -2, max: 9, noNaN: true }), km, km, km, km, km, km, (std, ox, oy, oz, dx, dy, dz) => {
        fc.pre(Math.hypot(dx, dy, dz) > 100)
        const observer = { x: ox, y: oy, z: oz }
        const sat = { x: ox + dx, y: oy + dy, z: oz + dz }
        const sun = { x: 1.2e8, y: -7e7, z: 3e7 }
        const plain = apparentMagnitude(std, Math.hypot(dx, dy, dz), phaseAngleRad(sat, observer, sun))
        const fast = magnitudeFromVectors(std, dx, dy, dz, sun.x - sat.x, sun.y - sat.y, sun.z - sat.z)
        expect(Math.abs(fast - plain)).toBeLessThan(1e-9)
      }),
      { numRuns: 5_000 },
    )
  })

  test('standardMagnitudes: the catalogue\'s estimates by index', async () => {
    const catalog = await embeddedCatalog()
    const table = standardMagnitudes(catalog)
    expect(table.length).toBe(catalog.size)
    catalog.satellites.forEach((s, i) => expect(table[i]).toBe(standardMagnitude(s).magnitude))
    expect(standardMagnitudes(catalog)).toBe(table)
  })
})

describe('standardMagnitude', () => {
  test('published values first, then name family, then class from the name, then the orbit', () => {
    expect(standardMagnitude(satellite(25544, 'ISS (ZARYA)', 420))).toEqual({ magnitude: -1.8, basis: 'published' })
    expect(standardMagnitude(satellite(20580, 'HST', 530)).basis).toBe('published')
    expect(standardMagnitude(satellite(44713, 'STARLINK-1007', 550))).toEqual({ magnitude: 7.0, basis: 'family' })
    expect(standardMagnitude(satellite(44057, 'ONEWEB-0012', 1200))).toEqual({ magnitude: 7.6, basis: 'family' })
    expect(standardMagnitude(satellite(28932, 'SL-16 R/B', 840))).toEqual({ magnitude: CLASS_STANDARD_MAGNITUDES.rocketBody, basis: 'class' })
    expect(standardMagnitude(satellite(43001, 'FREGAT DEB', 600))).toEqual({ magnitude: CLASS_STANDARD_MAGNITUDES.debris, basis: 'class' })
    expect(standardMagnitude(satellite(43013, 'NOAA 20 (JPSS-1)', 830))).toEqual({ magnitude: ORBIT_STANDARD_MAGNITUDES.LEO, basis: 'orbit' })
    expect(standardMagnitude(satellite(29055, 'ASTRA 1KR', 35790, 35780))).toEqual({ magnitude: ORBIT_STANDARD_MAGNITUDES.GEO, basis: 'orbit' })
    expect(standardMagnitude(satellite(28474, 'NAVSTAR 57', 20200))).toEqual({ magnitude: ORBIT_STANDARD_MAGNITUDES.MEO, basis: 'orbit' })
    // "DEB" and "R/B" as words only.
    expect(standardMagnitude(satellite(1, 'DEBUT (ORIZURU)', 800)).basis).toBe('orbit')
  })

  test('every published value carries its source', () => {
    for (const [, entry] of PUBLISHED_STANDARD_MAGNITUDES) expect(entry.source).toMatch(/^[vd]: .*https?:\/\//)
  })

  test('every satellite of the embedded catalogue gets a finite estimate', async () => {
    const catalog = await embeddedCatalog()
    const bases = new Map<string, number>()
    for (const s of catalog.satellites) {
      const { magnitude, basis } = standardMagnitude(s)
      expect(Number.isFinite(magnitude)).toBe(true)
      bases.set(basis, (bases.get(basis) ?? 0) + 1)
    }
    // The snapshot holds the ISS, the CSS and HST, both families and at least one debris object.
    expect(bases.get('published')).toBeGreaterThanOrEqual(3)
    expect(bases.get('family')).toBeGreaterThan(1000)
    expect(bases.get('class')).toBeGreaterThan(0)
  })
})

describe('what the defaults imply', () => {
  test('a geostationary payload is never brighter than magnitude 8.5 (far beyond the naked-eye limit)', () => {
    // Nearest possible: range 35,786 km (sub-satellite point), full phase.
    const best = apparentMagnitude(ORBIT_STANDARD_MAGNITUDES.GEO, 35_786, 0)
    expect(best).toBeGreaterThan(8.5)
    expect(best).toBeGreaterThan(DEFAULT_MAGNITUDE_LIMIT + 3)
  })

  test('the ISS overhead at 420 km: between -4.5 and -2.5 at the phase angles a dark sky allows (70°..110°)', () => {
    // Overhead, the phase angle is 90° minus the Sun's depression, and the ISS enters the Earth's shadow at
    // zenith once the Sun is ~20° down (arccos(6371/6791)): with the Sun at -6° or lower, 70°..84° (more off the zenith).
    for (const deg of [70, 84, 90, 110]) {
      const m = apparentMagnitude(-1.8, 420, deg * DEG)
      expect(m).toBeGreaterThan(-4.5)
      expect(m).toBeLessThan(-2.5)
    }
  })

  test('magnitudeAt combines the standard magnitude, the range and the phase angle', () => {
    const iss = satellite(25544, 'ISS (ZARYA)', 420)
    const sat = { x: 6798, y: 0, z: 0 }
    const observer = { x: 6378, y: 0, z: 0 }
    const sun = { x: 6798, y: 1.496e8, z: 0 }
    expect(magnitudeAt(iss, sat, observer, sun)).toBeCloseTo(-1.8 + 5 * Math.log10(0.42), 9)
  })
})
