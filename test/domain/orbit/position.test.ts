/**
 * One satellite at one instant (src/domain/orbit/position.ts): the "has a
 * position" rule. A satellite has a position at an instant within the age
 * limit of its elements, before its decay (decay first: once decayed within
 * that limit, every later instant says so), where SGP4 reports no error and
 * gives a plausible height (validity.ts); otherwise the refusal says why.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { sgp4 } from 'satellite.js'
import { buildCatalog, type Catalog } from '../../../src/domain/catalog/catalog.ts'
import { parseTle } from '../../../src/domain/catalog/elements.ts'
import { eciToGeodeticFast } from '../../../src/domain/orbit/geodetic-fast.ts'
import { minutesSinceEpoch, positionAt, positionsAt, siderealTimeRad, speedKmH } from '../../../src/domain/orbit/position.ts'
import { recentPositionAt } from '../../../src/domain/orbit/recent-positions.ts'
import { DEFAULT_MAX_ELEMENT_AGE_MS, FLOOR_KM, heightCeilingKm, NO_AGE_LIMIT, Validity } from '../../../src/domain/orbit/validity.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { makeTle, type TleOptions } from '../../helpers/tle.ts'

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
/** The synthetic satellites' epoch. */
const EPOCH_MS = Date.UTC(2026, 4, 30, 12)

let catalog: Catalog
beforeAll(async () => {
  catalog = await embeddedCatalog()
})

/** A catalogue of one invented satellite, under the default policy (30 days). */
function oneSatellite(options: TleOptions): Catalog {
  const tle = makeTle({ epochMs: EPOCH_MS, ...options })
  const parsed = parseTle(tle.name, tle.line1, tle.line2)
  if (!parsed.ok) throw new Error(parsed.reason)
  return buildCatalog([{ group: 'test', elements: [parsed.elements] }], { source: 'snapshot', obtainedAtMs: 0 }, 0)
}

/** ~370 km with heavy drag: it decays about a day after its epoch; before the epoch, drag run backwards raises it past its ceiling. */
const DECAYING: TleOptions = { noradId: 90101, meanMotionRevPerDay: 16.2, bstar: ' 10000-1' }
/** A negative drag term: run backwards from the epoch the orbit sinks below the ground within days. */
const SINKING_BACKWARDS: TleOptions = { noradId: 90102, meanMotionRevPerDay: 15.5, bstar: '-99999-1' }

const at = (c: Catalog, index: number, ms: number) => positionAt(c, index, new Date(ms), siderealTimeRad(new Date(ms)))

describe('positionAt: the "has a position" rule', () => {
  test('a position is SGP4 at the exact minutes since the epoch, as WGS84 latitude, longitude and height, with its speed', () => {
    const index = catalog.indexOf(25544)!
    const elements = catalog.satellites[index]!.elements
    const ms = elements.epochMs + 5 * HOUR_MS + 123
    const result = at(catalog, index, ms)
    if (!result.ok) throw new Error(result.reason)
    const pv = sgp4(catalog.satrecAt(index), minutesSinceEpoch(elements, ms))
    if (!pv) throw new Error('no SGP4 state')
    expect(result.state.eciKm).toEqual(pv.position)
    expect(result.state.velocityKmS).toEqual(pv.velocity)
    const geo = eciToGeodeticFast(pv.position, siderealTimeRad(new Date(ms)))
    expect(result.state.latitudeDeg).toBe((geo.latitude * 180) / Math.PI)
    expect(result.state.longitudeDeg).toBe((geo.longitude * 180) / Math.PI)
    expect(result.state.altitudeKm).toBe(geo.height)
    expect(result.state.speedKmH).toBe(speedKmH(pv.velocity))
    expect(result.state.altitudeKm).toBeGreaterThan(350)
    expect(result.state.altitudeKm).toBeLessThan(450)
  })

  test('the minutes from the epoch it propagates to are minutesSinceEpoch of the elements, for every satellite (the validity table of epochs)', () => {
    for (const ms of [Date.UTC(2026, 4, 30, 22, 50, 0, 1), Date.UTC(2026, 10, 25, 18, 3, 17, 999), Date.UTC(2025, 0, 1)]) {
      for (let i = 0; i < catalog.size; i++) expect(catalog.validity.minutesSinceEpoch(i, ms)).toBe(minutesSinceEpoch(catalog.satellites[i]!.elements, ms))
    }
  })

  test('without the geoposition, the same rule and the same state but the latitude and longitude (NaN), for every satellite', () => {
    const ms = Date.UTC(2026, 4, 31, 3, 4, 5, 678)
    const instant = new Date(ms)
    const gmst = siderealTimeRad(instant)
    let positions = 0
    for (let i = 0; i < catalog.size; i++) {
      const full = positionAt(catalog, i, instant, gmst)
      const bare = positionAt(catalog, i, instant, gmst, undefined, false)
      if (!full.ok) {
        expect(bare).toEqual(full)
        continue
      }
      positions++
      expect(bare.ok && [bare.state.latitudeDeg, bare.state.longitudeDeg]).toEqual([Number.NaN, Number.NaN])
      expect(bare).toEqual({ ok: true, state: { ...full.state, latitudeDeg: Number.NaN, longitudeDeg: Number.NaN } })
    }
    expect(positions).toBeGreaterThan(10_000)
  })

  test('element age: the window is inclusive at both ends, and the message gives the age and the limit', () => {
    const aged = catalog.withPolicy({ maxElementAgeMs: 30 * DAY_MS })
    const index = aged.indexOf(25544)!
    const epochMs = aged.satellites[index]!.elements.epochMs
    expect(at(aged, index, epochMs + 30 * DAY_MS).ok).toBe(true)
    expect(at(aged, index, epochMs - 30 * DAY_MS).ok).toBe(true)
    const after = at(aged, index, epochMs + 30 * DAY_MS + 1)
    const before = at(aged, index, epochMs - 30 * DAY_MS - 1)
    expect(after.ok || before.ok).toBe(false)
    // A millisecond past the limit does not read as the limit itself.
    if (!after.ok) expect(after).toMatchObject({ kind: 'element-age', reason: expect.stringMatching(/^the elements are more than 30 days old at this instant .*within 30 days of the epoch/) })
    if (!before.ok) expect(before.reason).toStartWith('the instant is more than 30 days before the elements')
    const hourPast = at(aged, index, epochMs + 30 * DAY_MS + 3_600_000)
    expect(!hourPast.ok && hourPast.reason).toStartWith('the elements are 30.04 days old at this instant')
    const daysPast = at(aged, index, epochMs + 45 * DAY_MS)
    expect(!daysPast.ok && daysPast.reason).toStartWith('the elements are 45 days old at this instant')
    // A limit said in hours: the age in hours too (0.042 days past a 1-hour limit read as within it).
    const hourly = catalog.withPolicy({ maxElementAgeMs: 3_600_000 })
    const late = at(hourly, index, epochMs + 3_600_000 + 15_000)
    expect(!late.ok && late.reason).toStartWith('the elements are 1.004 hours old at this instant')
    expect(!late.ok && late.reason).toContain('positions are given within 1 hour of the epoch')
    const early = at(hourly, index, epochMs - 5 * 3_600_000)
    expect(!early.ok && early.reason).toStartWith('the instant is 5.0 hours before the elements')
    // Without an age limit the same instants have positions.
    const open = aged.withPolicy(NO_AGE_LIMIT)
    expect(at(open, index, epochMs + 30 * DAY_MS + 1).ok).toBe(true)
    expect(at(open, index, epochMs - 30 * DAY_MS - 1).ok).toBe(true)
  })

  test('decay first: from the decay instant on, every instant is refused as decayed, past the age limit too', () => {
    const decaying = oneSatellite(DECAYING)
    const refusals = [1.5, 2, 10, 29, 31, 40, 365].map((days) => at(decaying, 0, EPOCH_MS + days * DAY_MS))
    for (const refusal of refusals) expect(refusal).toMatchObject({ ok: false, kind: 'decayed' })
    const reasons = new Set(refusals.map((r) => (r.ok ? '' : r.reason)))
    expect(reasons.size).toBe(1)
    const [reason] = reasons
    expect(reason).toMatch(/^decayed at 2026-05-31T[\d:.]+Z \(.*\); no later positions$/)
    // The decay instant itself is refused; a millisecond before it, a position at a plausible height.
    const decayMs = Date.parse(/decayed at (\S+) /.exec(reason!)![1]!)
    expect(at(decaying, 0, decayMs)).toMatchObject({ ok: false, kind: 'decayed' })
    const before = at(decaying, 0, decayMs - 1)
    if (!before.ok) throw new Error(before.reason)
    expect(before.state.altitudeKm).toBeGreaterThanOrEqual(FLOOR_KM)
  })

  test('plausible heights: a position above the ceiling (apogee height + 10 % + 200 km) is refused, saying both heights', () => {
    const decaying = oneSatellite(DECAYING)
    const ceiling = heightCeilingKm(decaying.satellites[0]!.elements)
    const refused = at(decaying, 0, EPOCH_MS - 3 * DAY_MS)
    if (refused.ok) throw new Error('a position above the ceiling')
    expect(refused.kind).toBe('implausible')
    expect(refused.reason).toMatch(new RegExp(`^SGP4 gives a height of \\d+ km, above the highest plausible for these elements \\(${ceiling.toFixed(0)} km: apogee height \\d+ km \\+ 10 % \\+ 200 km\\)$`))
    const height = Number(/height of (\d+) km/.exec(refused.reason)![1])
    expect(height).toBeGreaterThan(ceiling)
    // Two days before the epoch it is still below its ceiling: a position.
    const kept = at(decaying, 0, EPOCH_MS - 2 * DAY_MS)
    if (!kept.ok) throw new Error(kept.reason)
    expect(kept.state.altitudeKm).toBeLessThanOrEqual(ceiling)
  })

  test('plausible heights: from the 80 km floor to the ceiling, both included; the refusal names the height and the bound', () => {
    const elements = catalog.get(25544)!.elements
    const validity = new Validity([elements], NO_AGE_LIMIT)
    const ceiling = heightCeilingKm(elements)
    expect(validity.heightRefusal(0, FLOOR_KM)).toBeNull()
    expect(validity.heightRefusal(0, ceiling)).toBeNull()
    expect(validity.heightRefusal(0, 50)).toEqual({ kind: 'implausible', reason: 'SGP4 gives a height of 50 km, below the 80 km floor' })
    expect(validity.heightRefusal(0, FLOOR_KM - 1e-9)).toMatchObject({ kind: 'implausible' })
    // Never a height that reads as the bound it missed: decimals until it does not.
    expect(validity.heightRefusal(0, FLOOR_KM - 0.0004)!.reason).toBe('SGP4 gives a height of 79.9996 km, below the 80 km floor')
    expect(validity.heightRefusal(0, 79.4)!.reason).toBe('SGP4 gives a height of 79 km, below the 80 km floor')
    for (const over of [0.02, 0.3, 1e-5]) {
      const [, shownHeight, shownCeiling] = /height of ([\d.]+) km, above the highest plausible for these elements \(([\d.]+) km/.exec(validity.heightRefusal(0, ceiling + over)!.reason)!
      expect(Number(shownHeight)).toBeGreaterThan(Number(shownCeiling))
    }
    expect(validity.heightRefusal(0, ceiling + 1e-9)).toMatchObject({ kind: 'implausible', reason: expect.stringContaining('above the highest plausible for these elements') })
    for (const height of [FLOOR_KM - 1, FLOOR_KM, 400, ceiling, ceiling + 1]) expect(validity.plausibleHeight(0, height)).toBe(validity.heightRefusal(0, height) === null)
  })

  test('SGP4 errors: an instant where SGP4 reports one is refused with its meaning', () => {
    const sinking = oneSatellite(SINKING_BACKWARDS)
    // Five days before the epoch (within the age limit; decay is looked for only after the epoch).
    // Run backwards, below the surface is not a decay: the elements describe no orbit it had then.
    expect(at(sinking, 0, EPOCH_MS - 5 * DAY_MS)).toEqual({
      ok: false,
      kind: 'sgp4',
      reason: "SGP4 finds the satellite below the surface 5.0 days before the elements' epoch: they cannot be run back that far",
    })
    expect(at(sinking, 0, EPOCH_MS - 2 * DAY_MS).ok).toBe(true)
  })

  test('the default age limit is 30 days', () => {
    expect(DEFAULT_MAX_ELEMENT_AGE_MS).toBe(30 * DAY_MS)
    const index = catalog.indexOf(25544)!
    const epochMs = catalog.satellites[index]!.elements.epochMs
    expect(at(catalog, index, epochMs + 30 * DAY_MS).ok).toBe(true)
    expect(at(catalog, index, epochMs + 30 * DAY_MS + 1)).toMatchObject({ ok: false, kind: 'element-age' })
  })
})

describe('positionsAt', () => {
  test('several satellites: those with a position, the ids unknown, and those without one with the reason of each', () => {
    const instant = new Date(Date.UTC(2026, 5, 20, 10))
    const decayed = 48880
    const result = positionsAt(catalog, [25544, 999_999_999, decayed, 20580], instant)
    expect(result.found.map((f) => f.satellite.noradId)).toEqual([25544, 20580])
    for (const { satellite, state } of result.found) {
      const alone = at(catalog, catalog.indexOf(satellite.noradId)!, instant.getTime())
      expect(alone).toEqual({ ok: true, state })
    }
    expect(result.missing).toEqual([999_999_999])
    expect(result.noPosition).toEqual([decayed])
    const alone = at(catalog, catalog.indexOf(decayed)!, instant.getTime())
    if (alone.ok) throw new Error('48880 has a position')
    expect(result.noPositionReasons).toEqual([{ noradId: decayed, kind: 'decayed', reason: alone.reason }])
  })
})

describe('recentPositionAt', () => {
  test('gives positionAt’s answer, shared by requests at the same millisecond only', () => {
    const iss = catalog.get(25544)!
    const instant = new Date(Date.UTC(2026, 4, 31, 6, 0, 0, 123))
    const first = recentPositionAt(catalog, iss, instant)
    expect(first).toEqual(positionAt(catalog, catalog.indexOf(iss.noradId)!, instant, siderealTimeRad(instant)))
    expect(recentPositionAt(catalog, iss, new Date(instant.getTime()))).toBe(first)
    const next = recentPositionAt(catalog, iss, new Date(instant.getTime() + 1))
    expect(next).not.toBe(first)
    expect(next).toEqual(positionAt(catalog, catalog.indexOf(iss.noradId)!, new Date(instant.getTime() + 1), siderealTimeRad(new Date(instant.getTime() + 1))))
  })

  test('satellites sharing a slot, and a new catalogue, are never confused', () => {
    const instant = new Date(Date.UTC(2026, 4, 31, 6))
    // 25544 and 25544 + 256 fall in the same slot when both exist; any two ids 256 apart do.
    const ids = catalog.satellites.map((s) => s.noradId)
    const pair = ids.find((id) => catalog.get(id + 256) !== undefined)!
    for (const id of [pair, pair + 256, pair, pair + 256]) {
      const satellite = catalog.get(id)!
      expect(recentPositionAt(catalog, satellite, instant)).toEqual(positionAt(catalog, catalog.indexOf(satellite.noradId)!, instant, siderealTimeRad(instant)))
    }
    const copy = buildCatalog([{ group: 'copy', elements: [catalog.get(pair)!.elements] }], { source: 'snapshot', obtainedAtMs: 0 }, 0)
    const fromCopy = recentPositionAt(copy, copy.get(pair)!, instant)
    expect(fromCopy).not.toBe(recentPositionAt(catalog, catalog.get(pair)!, instant))
    expect(fromCopy).toEqual(recentPositionAt(catalog, catalog.get(pair)!, instant))
  })
})
