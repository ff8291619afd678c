/** The fast geometry (src/domain/orbit/geodetic-fast.ts, sunlight-test.ts) gives satellite.js's own answers. */
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { eciToGeodetic, sunPos, jday } from 'satellite.js'
import { eciToGeodeticFast, remainderTwoPi } from '../../../src/domain/orbit/geodetic-fast.ts'
import type { Vector3 } from '../../../src/domain/orbit/vector.ts'
import { isSunlit } from '../../../src/domain/orbit/sky.ts'
import { sunlightTest } from '../../../src/domain/orbit/sunlight-test.ts'

/** A point at `radiusKm` from the Earth's centre in the direction (lat, lon), radians. */
function point(radiusKm: number, lat: number, lon: number): Vector3 {
  return { x: radiusKm * Math.cos(lat) * Math.cos(lon), y: radiusKm * Math.cos(lat) * Math.sin(lon), z: radiusKm * Math.sin(lat) }
}

const direction = fc.record({ lat: fc.double({ min: -Math.PI / 2, max: Math.PI / 2, noNaN: true }), lon: fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }) })

describe('eciToGeodeticFast', () => {
  test('matches satellite.js eciToGeodetic from the ground to a million km', () => {
    fc.assert(
      fc.property(fc.double({ min: 6340, max: 1_006_400, noNaN: true }), direction, fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }), (r, { lat, lon }, gmst) => {
        const eci = point(r, lat, lon)
        const fast = eciToGeodeticFast(eci, gmst)
        const reference = eciToGeodetic(eci, gmst)
        expect(Math.abs(fast.latitude - reference.latitude)).toBeLessThan(1e-12)
        expect(Math.abs(fast.longitude - reference.longitude)).toBeLessThan(1e-12)
        expect(Math.abs(fast.height - reference.height)).toBeLessThan(1e-6 * Math.max(1, r / 10_000))
      }),
      { numRuns: 20_000 },
    )
  })

  test('matches it near the axis too, where the latitude is iterated instead of its tangent', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 6340, max: 1_006_400, noNaN: true }),
        fc.double({ min: 0, max: 300, noNaN: true }),
        fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }),
        fc.boolean(),
        (z, R, lon, south) => {
          const eci = { x: R * Math.cos(lon), y: R * Math.sin(lon), z: south ? -z : z }
          const fast = eciToGeodeticFast(eci, 0.7)
          const reference = eciToGeodetic(eci, 0.7)
          expect(Math.abs(fast.latitude - reference.latitude)).toBeLessThan(1e-12)
          expect(Math.abs(fast.height - reference.height)).toBeLessThan(1e-6 * Math.max(1, z / 10_000))
        },
      ),
      { numRuns: 5_000 },
    )
  })

  test('on the axis and in the equatorial plane', () => {
    for (const eci of [point(6800, Math.PI / 2, 0), point(6800, -Math.PI / 2, 0), point(42_164, 0, 1), { x: 7000, y: 0, z: 0 }]) {
      const fast = eciToGeodeticFast(eci, 0.3)
      const reference = eciToGeodetic(eci, 0.3)
      expect(fast.latitude).toBeCloseTo(reference.latitude, 12)
      expect(fast.height).toBeCloseTo(reference.height, 6)
    }
  })
})

describe('sunlightTest', () => {
  // The Sun over a year, so the umbra points every way.
  const suns = Array.from({ length: 24 }, (_, k) => sunPos(jday(new Date(Date.UTC(2026, 0, 1) + k * 15.2 * 86_400_000))).rsun)

  test('agrees with isSunlit (satellite.js shadowFraction) everywhere', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: suns.length - 1 }), fc.double({ min: 6400, max: 400_000, noNaN: true }), direction, (k, r, { lat, lon }) => {
        const sun = suns[k]!
        const p = point(r, lat, lon)
        expect(sunlightTest(sun)(p)).toBe(isSunlit(p, sun))
      }),
      { numRuns: 20_000 },
    )
  })

  test('agrees at the edges of the shadow: deep umbra, penumbra and just outside', () => {
    const sun = suns[3]!
    const test = sunlightTest(sun)
    const length = Math.hypot(sun.x, sun.y, sun.z)
    const anti = { x: -sun.x / length, y: -sun.y / length, z: -sun.z / length }
    // A unit vector across the shadow axis.
    const across = { x: anti.y, y: -anti.x, z: 0 }
    const n = Math.hypot(across.x, across.y)
    const seen = new Set<boolean>()
    for (const alongKm of [7000, 20_000, 42_164]) {
      for (let offsetKm = 6000; offsetKm <= 6800; offsetKm += 0.25) {
        const p = { x: anti.x * alongKm + (across.x / n) * offsetKm, y: anti.y * alongKm + (across.y / n) * offsetKm, z: anti.z * alongKm }
        const lit = isSunlit(p, sun)
        seen.add(lit)
        expect(test(p)).toBe(lit)
      }
    }
    expect([...seen].sort()).toEqual([false, true])
  })
})

describe('remainderTwoPi', () => {
  test('is the % operator, bit for bit, signed zeros included', () => {
    const twoPi = 2 * Math.PI
    const edges = [0, -0, twoPi, -twoPi, 2 * twoPi, -2 * twoPi, Math.PI, -Math.PI, 1e-300, 1e300, Number.EPSILON]
    const near = edges.flatMap((x) => [x, x * (1 + Number.EPSILON), x * (1 - Number.EPSILON), -x])
    for (const x of near) expect(Object.is(remainderTwoPi(x), x % twoPi)).toBe(true)
    fc.assert(
      fc.property(fc.double({ min: -40, max: 40, noNaN: true }), (x) => {
        expect(Object.is(remainderTwoPi(x), x % twoPi)).toBe(true)
      }),
      { numRuns: 50_000 },
    )
  })
})
