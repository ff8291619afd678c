/** The mean-element bounds behind /nearby at one-off instants, against SGP4 and the plain loop over the real catalogue. */
import { beforeAll, describe, expect, test } from 'bun:test'
import { geodeticToEcf, sgp4 } from 'satellite.js'
import type { Catalog } from '../../../src/domain/catalog/catalog.ts'
import { findNearby } from '../../../src/domain/nearby/reference.ts'
import type { NearbyQuery } from '../../../src/domain/nearby/selection.ts'
import { NearbyEngine } from '../../../src/domain/nearby/engine.ts'
import { siderealTimeRad } from '../../../src/domain/orbit/position.ts'
import { centreBound, MAX_ECCENTRICITY, type MeanArc, meanArc, reachable, type ReachObserver } from '../../../src/domain/nearby/reach.ts'
import { minutesSinceEpoch } from '../../../src/domain/orbit/resonance.ts'
import { NO_AGE_LIMIT } from '../../../src/domain/orbit/validity.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { edgeQueries, extremeQueries, nearbyQuery, random } from '../../helpers/nearby.ts'

let catalog: Catalog
beforeAll(async () => {
  // Months from the epochs too: no age limit (decay and plausibility still apply).
  catalog = (await embeddedCatalog()).withPolicy(NO_AGE_LIMIT)
})

const DEG = Math.PI / 180
const SNAPSHOT = Date.UTC(2026, 4, 30, 22, 50)
const DAY_MS = 86_400_000

/** A fresh engine answers every instant as a one-off (no tables yet). */
const oneOff = (query: NearbyQuery) => new NearbyEngine({ defer: () => {} }).find(catalog, query)

/** The plain loop's answer as the engine gives it: a subpoint only where the query asks for one. */
function plainAnswer(query: NearbyQuery) {
  const plain = findNearby(catalog, query)
  if (!query.geoposition) for (const entry of plain.entries) [entry.latitudeDeg, entry.longitudeDeg] = [undefined, undefined]
  return plain
}

describe('mean arcs', () => {
  test('SGP4 puts every near-earth satellite on its mean arc, from a month before the snapshot to 14 months after', () => {
    const arc: MeanArc = { node: 0, cosInclination: 0, sinInclination: 0, u: 0, arc: 0, tilt: 0, maxRadiusKm: 0 }
    let checked = 0
    let nearest = 0 // the largest share of a bound a satellite used
    for (const days of [-30, 0, 0.37, 3, 41, 190, 420]) {
      const instantMs = SNAPSHOT + days * DAY_MS
      for (let i = 0; i < catalog.size; i++) {
        const satrec = catalog.satrecAt(i)
        const tsince = minutesSinceEpoch(satrec, instantMs)
        if (!meanArc(satrec, tsince, arc)) continue
        const pv = sgp4(satrec, tsince)
        if (!pv) continue
        const { x, y, z } = pv.position
        const r = Math.hypot(x, y, z)
        // The satellite in the frame of its mean circle: angle φ along it from the node, β off it.
        const [cosO, sinO, cosI, sinI] = [Math.cos(arc.node), Math.sin(arc.node), arc.cosInclination, arc.sinInclination]
        const p = (x * cosO + y * sinO) / r
        const q = (-x * cosI * sinO + y * cosI * cosO + z * sinI) / r
        let gap = Math.abs(arc.u - Math.atan2(q, p)) % (2 * Math.PI)
        if (gap > Math.PI) gap = 2 * Math.PI - gap
        // The angle to the nearest point of the arc must be within the tilt.
        const offArc = Math.acos(Math.min(1, Math.hypot(p, q) * Math.cos(Math.max(0, gap - arc.arc))))
        expect(offArc).toBeLessThanOrEqual(arc.tilt)
        expect(r).toBeLessThanOrEqual(arc.maxRadiusKm)
        nearest = Math.max(nearest, offArc / arc.tilt, r / arc.maxRadiusKm)
        checked++
      }
    }
    expect(checked).toBeGreaterThan(70_000)
    expect(nearest).toBeGreaterThan(0.9) // the bounds are tight, not merely safe
  })

  test('the centre bound covers the largest equation of the centre up to the eccentricity it is used for', () => {
    for (let e = 1e-6; e <= MAX_ECCENTRICITY; e += 0.001) {
      // ν − M is largest where dν/dM = 1: (1 + e·cos ν)² = (1 − e²)^1.5.
      const nu = Math.acos(((1 - e * e) ** 0.75 - 1) / e)
      const E = 2 * Math.atan(Math.sqrt((1 - e) / (1 + e)) * Math.tan(nu / 2))
      expect(centreBound(e)).toBeGreaterThanOrEqual(nu - (E - e * Math.sin(E)))
    }
  })

  test('deep-space records and eccentric orbits have no arc (always propagated)', () => {
    const arc: MeanArc = { node: 0, cosInclination: 0, sinInclination: 0, u: 0, arc: 0, tilt: 0, maxRadiusKm: 0 }
    let deep = 0
    for (let i = 0; i < catalog.size; i++) {
      const satrec = catalog.satrecAt(i)
      if (satrec.method === 'd') {
        expect(meanArc(satrec, 0, arc)).toBe(false)
        deep++
      } else if (satrec.ecco > MAX_ECCENTRICITY) expect(meanArc(satrec, 0, arc)).toBe(false)
    }
    expect(deep).toBeGreaterThan(100)
  })
})

describe('reachable', () => {
  test('keeps every satellite the plain loop finds, and about a tenth of the catalogue or less', () => {
    const next = random(2026)
    const indexOf = new Map(catalog.satellites.map((s, i) => [s, i]))
    let found = 0
    let kept = 0
    const rounds = 40
    for (let k = 0; k < rounds; k++) {
      const latitudeDeg = next() * 180 - 90
      const observer = { latitudeDeg, longitudeDeg: next() * 360 - 180, altitudeM: next() * 3000 }
      const instant = new Date(SNAPSHOT + (next() * 450 - 30) * DAY_MS)
      const minElevationDeg = 10 + next() * 30
      const gmst = siderealTimeRad(instant)
      const o = geodeticToEcf({ latitude: latitudeDeg * DEG, longitude: observer.longitudeDeg * DEG, height: observer.altitudeM / 1000 })
      const radiusKm = Math.hypot(o.x, o.y, o.z)
      // Geodetic and geocentric verticals differ by up to ~0.19°; take the lowest geocentric elevation.
      const geocentricLatDeg = Math.asin(o.z / radiusKm) / DEG
      const reach: ReachObserver = {
        x: (o.x * Math.cos(gmst) - o.y * Math.sin(gmst)) / radiusKm,
        y: (o.x * Math.sin(gmst) + o.y * Math.cos(gmst)) / radiusKm,
        z: o.z / radiusKm,
        radiusKm,
        minElevation: (minElevationDeg - Math.abs(latitudeDeg - geocentricLatDeg)) * DEG,
      }
      const keep = new Set(reachable(catalog, instant.getTime(), reach))
      const plain = findNearby(catalog, nearbyQuery(observer, instant, { minElevationDeg }))
      for (const entry of plain.entries) expect(keep.has(indexOf.get(entry.satellite)!)).toBe(true)
      found += plain.entries.length
      kept += keep.size
    }
    expect(found).toBeGreaterThan(1_000)
    expect(kept / rounds).toBeLessThan(catalog.size / 10)
  })
})

describe('one-off instants in the engine', () => {
  test('equal the plain loop, bit for bit, for 60 random observers and instants, near the epoch and months away', () => {
    const next = random(7)
    let compared = 0
    for (let k = 0; k < 60; k++) {
      const spanMs = k % 2 === 0 ? DAY_MS : 420 * DAY_MS
      const query = nearbyQuery(
        { latitudeDeg: next() * 180 - 90, longitudeDeg: next() * 360 - 180, altitudeM: next() * 3000 },
        new Date(SNAPSHOT + Math.floor(next() * spanMs)),
        { minElevationDeg: 10 + next() * 30, geoposition: k % 3 === 0, visibleOnly: k % 7 === 0 },
      )
      const plain = plainAnswer(query)
      expect(oneOff(query)).toEqual(plain)
      compared += plain.entries.length
    }
    expect(compared).toBeGreaterThan(3_000)
  })

  test('lose no one at the poles, the equator, the highest and lowest observers, low and steep thresholds', () => {
    const instant = new Date(SNAPSHOT + 97 * DAY_MS + 1234)
    let compared = 0
    for (const query of extremeQueries([-90, -64.2, 0, 23.44, 53.1, 89.99, 90], -121.3, instant)) {
      const plain = plainAnswer(query)
      expect(oneOff(query)).toEqual(plain)
      compared += plain.entries.length
    }
    expect(compared).toBeGreaterThan(1_000)
  })

  test('keep a satellite due north or south of the observer just above the threshold, at every height', () => {
    const { bands, cases } = edgeQueries(catalog, new Date(SNAPSHOT + 3.3 * DAY_MS + 4321), 1e-6)
    for (const { query, noradId } of cases) expect(oneOff(query).entries.map((e) => e.satellite.noradId)).toContain(noradId)
    expect(bands).toBeGreaterThan(12)
    expect(cases.length).toBeGreaterThan(100)
  })
})
