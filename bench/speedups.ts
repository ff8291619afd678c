/**
 * What each speed-up of the domain earns: every one timed next to the plain
 * reference it must equal (the tests hold them equal), in one run, in process,
 * on the embedded catalogue. Part of `make bench`; alone:
 *
 *   bun bench/speedups.ts
 *
 * Each row: the work measured, the reference's time, the speed-up's time, the
 * ratio, and what that is worth per /nearby request (how often the work runs in
 * one), so a speed-up whose gain is lost in a request's cost shows it.
 */
import { eciToGeodetic } from 'satellite.js'
import { buildCatalog, type Catalog } from '../src/domain/catalog/catalog.ts'
import { byElevation } from '../src/domain/nearby/by-elevation.ts'
import { NearbyEngine } from '../src/domain/nearby/engine.ts'
import { lookAnglesFrom } from '../src/domain/nearby/look-angles-fast.ts'
import { findNearby } from '../src/domain/nearby/reference.ts'
import { comesBefore, type NearbyEntry, type NearbyQuery } from '../src/domain/nearby/selection.ts'
import { eciToGeodeticFast } from '../src/domain/orbit/geodetic-fast.ts'
import { positionAt, siderealTimeRad, type Vector3 } from '../src/domain/orbit/position.ts'
import { recentPositionAt } from '../src/domain/orbit/recent-positions.ts'
import { isSunlit, lookAngles, sunPositionAu } from '../src/domain/orbit/sky.ts'
import { sunlightTest } from '../src/domain/orbit/sunlight-test.ts'
import { DEFAULT_VALIDITY_POLICY, Validity } from '../src/domain/orbit/validity.ts'
import { loadEmbeddedSnapshot } from '../src/io/embedded.ts'
import { NearbyAnswerWriter } from '../src/http/routes/nearby/answer-writer.ts'
import { parseParams } from '../src/http/plugins/params.ts'
import { nearbyAnswerObject, nearbyFound, nearbyParams } from '../src/http/routes/nearby/index.ts'

export interface SpeedupRow {
  name: string
  file: string
  referenceUs: number
  fastUs: number
  /** Microseconds saved per /nearby request (whole sky from 10°, Paris, at night), where the work runs in one. */
  savedPerRequestUs: number | null
}

/** The median time of `fn`, µs per call, over `rounds` rounds of `calls` calls (after one round of warm-up). */
function timeUs(fn: () => unknown, calls: number, rounds = 7): number {
  for (let i = 0; i < calls; i++) fn()
  const times: number[] = []
  for (let r = 0; r < rounds; r++) {
    const started = performance.now()
    for (let i = 0; i < calls; i++) fn()
    times.push(((performance.now() - started) * 1000) / calls)
  }
  return times.sort((a, b) => a - b)[rounds >> 1]!
}

const PARIS = { latitudeDeg: 48.8566, longitudeDeg: 2.3522, altitudeM: 35 }
const NIGHT = Date.UTC(2026, 4, 30, 23, 0, 0)

function query(instantMs: number): NearbyQuery {
  return { observer: PARIS, instant: new Date(instantMs), minElevationDeg: 10, azimuthFromDeg: 0, azimuthToDeg: 360, visibleOnly: false, geoposition: true }
}

export async function speedups(): Promise<SpeedupRow[]> {
  const snapshot = await loadEmbeddedSnapshot()
  const catalog: Catalog = buildCatalog(
    snapshot.groups.map((g) => ({ group: g.group, elements: g.elements ?? [] })),
    { source: 'embedded', obtainedAtMs: snapshot.obtainedAtMs },
    snapshot.obtainedAtMs,
  ).withPolicy(DEFAULT_VALIDITY_POLICY)
  const rows: SpeedupRow[] = []
  const instant = new Date(NIGHT)
  const gmst = siderealTimeRad(instant)
  const answer = findNearby(catalog, query(NIGHT))
  const listed = answer.entries.length
  // The positions of the catalogue at the instant, for the per-satellite pieces.
  const positions: Vector3[] = []
  for (let i = 0; i < catalog.size; i++) {
    const p = positionAt(catalog, i, instant, gmst)
    if (p.ok) positions.push(p.state.eciKm)
  }
  let k = 0
  const next = () => positions[k++ % positions.length]!

  // 1. The engine against the reference loop: at "now" (tables ready) and at one-off instants.
  const engine = new NearbyEngine({ defer: () => {}, oneOffsWithoutTables: false })
  let t = 0
  const nowReference = timeUs(() => findNearby(catalog, query(NIGHT + (t++ % 10_000))), 3, 3)
  const nowEngine = timeUs(() => engine.find(catalog, query(NIGHT + (t++ % 10_000))), 200)
  rows.push({ name: '/nearby at "now" (tables on the 10 s grid)', file: 'nearby/engine.ts, position-table.ts, declination-bands.ts', referenceUs: nowReference, fastUs: nowEngine, savedPerRequestUs: nowReference - nowEngine })
  const oneOffEngine = new NearbyEngine({ defer: () => {} })
  let hour = 0
  const oneOffInstant = () => NIGHT - 10 * 86_400_000 + (hour++ * 3_600_000 + 1234)
  const oneOffReference = timeUs(() => findNearby(catalog, query(oneOffInstant())), 3, 3)
  const oneOffFast = timeUs(() => oneOffEngine.find(catalog, query(oneOffInstant())), 20)
  rows.push({ name: '/nearby at one-off instants (no tables: the day windows of the mean-element bound and Kepler orbits)', file: 'nearby/day-windows.ts, reach.ts', referenceUs: oneOffReference, fastUs: oneOffFast, savedPerRequestUs: oneOffReference - oneOffFast })
  // The satellites left out by age or decay at a new instant (every one-off answer's metadata).
  const counted = new Validity(catalog.satellites.map((s) => s.elements), catalog.validity.policy)
  const oneByOne = new Validity(catalog.satellites.map((s) => s.elements), catalog.validity.policy)
  let day = 0
  const countAt = () => NIGHT - 15 * 86_400_000 + (day++ % 30) * 86_400_000 + (day % 997) * 1000
  const countReference = timeUs(() => oneByOne.countRefusalsOneByOne(countAt(), (i) => catalog.satrecAt(i)), 30)
  const countFast = timeUs(() => counted.countRefusals(countAt(), (i) => catalog.satrecAt(i)), 3000)
  rows.push({ name: 'satellites left out by age or decay at a new instant', file: 'orbit/refusal-index.ts (validity.ts countRefusals)', referenceUs: countReference, fastUs: countFast, savedPerRequestUs: countReference - countFast })

  // 2. The pieces, per call; worth per request = saving × how often a request runs them.
  const site = lookAnglesFrom(PARIS)
  const observerKm = { x: 4201, y: 172, z: 4780 }
  const look = timeUs(() => lookAngles(PARIS, next(), gmst), 20_000)
  const lookFast = timeUs(() => {
    const p = next()
    return site(p.x - observerKm.x, p.y - observerKm.y, p.z - observerKm.z)
  }, 20_000)
  rows.push({ name: 'look angles of a listed satellite', file: 'nearby/look-angles-fast.ts', referenceUs: look, fastUs: lookFast, savedPerRequestUs: (look - lookFast) * listed })
  const sunAu = sunPositionAu(instant)
  const lit = sunlightTest(sunAu)
  const sunlit = timeUs(() => isSunlit(next(), sunAu), 20_000)
  const sunlitFast = timeUs(() => lit(next()), 20_000)
  rows.push({ name: 'sunlit or not, a listed satellite', file: 'orbit/sunlight-test.ts', referenceUs: sunlit, fastUs: sunlitFast, savedPerRequestUs: (sunlit - sunlitFast) * listed })
  const geodetic = timeUs(() => eciToGeodetic(next(), gmst), 20_000)
  const geodeticFast = timeUs(() => eciToGeodeticFast(next(), gmst), 20_000)
  rows.push({ name: 'geodetic position (every position the service gives)', file: 'orbit/geodetic-fast.ts', referenceUs: geodetic, fastUs: geodeticFast, savedPerRequestUs: (geodetic - geodeticFast) * listed })
  // In the order the engine finds them (by band and declination cell): no order of elevation; here a fixed shuffle.
  let seed = 7
  const entries: NearbyEntry[] = answer.entries
    .map((entry) => ({ entry, key: (seed = (seed * 16_807) % 2_147_483_647) }))
    .sort((a, b) => a.key - b.key)
    .map(({ entry }) => entry)
  const sort = timeUs(() => [...entries].sort(comesBefore), 300)
  const sortFast = timeUs(() => byElevation(entries), 300)
  rows.push({ name: `ordering an answer (${listed} entries)`, file: 'nearby/by-elevation.ts', referenceUs: sort, fastUs: sortFast, savedPerRequestUs: sort - sortFast })
  // The answer's JSON: an object per entry and JSON.stringify, or written by NearbyAnswerWriter (its rows made on the warm-up round).
  // The route's own parsing and defaults, as for a request over Paris.
  const overParis = new URLSearchParams({ latitude: String(PARIS.latitudeDeg), longitude: String(PARIS.longitudeDeg), altitude: String(PARIS.altitudeM) })
  const params = parseParams(nearbyParams, (name) => overParis.getAll(name))
  const found = nearbyFound(() => answer, catalog, params, instant)
  const writer = new NearbyAnswerWriter()
  const json = timeUs(() => JSON.stringify(nearbyAnswerObject(found)), 300)
  const jsonFast = timeUs(() => writer.write(found), 300)
  rows.push({ name: `writing an answer's JSON (${listed} entries)`, file: 'http/routes/nearby/answer-writer.ts', referenceUs: json, fastUs: jsonFast, savedPerRequestUs: json - jsonFast })

  // 3. Caches across requests: one satellite asked at the same instant again; a geostationary satellite six months out.
  const iss = catalog.get(25544)!
  const issIndex = catalog.indexOf(25544)!
  const single = timeUs(() => positionAt(catalog, issIndex, instant, siderealTimeRad(instant)), 20_000)
  const recent = timeUs(() => recentPositionAt(catalog, iss, instant), 20_000)
  rows.push({ name: 'one satellite again at the same instant (popular satellite, "now")', file: 'orbit/recent-positions.ts recentPositionAt', referenceUs: single, fastUs: recent, savedPerRequestUs: null })
  return rows
}

export function speedupsTable(rows: SpeedupRow[]): string {
  const us = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(1)} ms` : `${v.toFixed(v < 10 ? 2 : 0)} µs`)
  return [
    '| speed-up | file | reference | fast | ratio | saved per /nearby request |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | \`${r.file}\` | ${us(r.referenceUs)} | ${us(r.fastUs)} | ${(r.referenceUs / r.fastUs).toFixed(1)}× | ${r.savedPerRequestUs === null ? '(not in /nearby)' : us(r.savedPerRequestUs)} |`,
    ),
  ].join('\n')
}

if (import.meta.main) console.log(speedupsTable(await speedups()))
