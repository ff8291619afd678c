/**
 * How fast /nearby could answer at one-off instants near the epoch (issue 22,
 * point 3: ≥ 20× the plain loop) if its filter were perfect and free: an
 * "oracle" search that already knows which satellites the answer holds and
 * propagates only those, with the engine's own pieces (positionAt, the fast
 * look angles and sunlight test, the ordering by elevation). In process, CPU
 * per request, the plain loop, the engine and the oracle measured in
 * interleaved rounds over the same random observers and instants (within 20
 * days of the embedded elements' epoch, as bench/random-observer.lua asks in
 * make bench); the three answers are checked equal byte for byte first.
 *
 * A request is its search and written answer plus the rest (parameters,
 * routing, the left-out count, the Response), measured as a whole request
 * through app.handle less the engine's search and answer. The oracle keeps
 * SGP4's own bits for every satellite listed, as the engine does at one-off
 * instants: it bounds what a better filter could give, not what other ways
 * of placing the satellites might (interpolation within the 10 m the answers
 * promise would need tables for every instant asked, docs/architecture.md).
 *
 *   bun bench/one-off-bound.ts
 */
import { createApp } from '../src/http/app.ts'
import { type Catalog, fullSatrec } from '../src/domain/catalog/catalog.ts'
import { catalogFromSnapshot } from '../src/domain/catalog/snapshot.ts'
import { byElevation } from '../src/domain/nearby/by-elevation.ts'
import { NearbyEngine } from '../src/domain/nearby/engine.ts'
import { lookAnglesFrom } from '../src/domain/nearby/look-angles-fast.ts'
import { findNearby } from '../src/domain/nearby/reference.ts'
import { type NearbyEntry, type NearbyQuery, type NearbyResult, NearbySelection } from '../src/domain/nearby/selection.ts'
import { positionAt, siderealTimeRad } from '../src/domain/orbit/position.ts'
import { skyConditions } from '../src/domain/orbit/sky.ts'
import { sunlightTest } from '../src/domain/orbit/sunlight-test.ts'
import { NO_AGE_LIMIT } from '../src/domain/orbit/validity.ts'
import { parseParams } from '../src/http/plugins/params.ts'
import { nearbyFound, nearbyParams } from '../src/http/routes/nearby/index.ts'
import { NearbyAnswerWriter } from '../src/http/routes/nearby/answer-writer.ts'
import { loadEmbeddedSnapshot } from '../src/io/embedded.ts'

/** The embedded elements' stamp (2026-05-30T22:50Z), ms: the instants lie within 20 days of it. */
const EPOCH_MS = 1_780_181_400_000
const SPREAD_MS = 20 * 86_400_000
const CASES = 400
export const ROUNDS = 15

export interface OneOffBound {
  /** Satellites per answer, on average. */
  listed: number
  /** CPU per call, ms (medians of the rounds): search and written answer of each, and the rest of a request. */
  plainMs: number
  engineMs: number
  oracleMs: number
  restMs: number
}

export async function oneOffBound(): Promise<OneOffBound> {
  const catalog = catalogFromSnapshot(await loadEmbeddedSnapshot(), 'embedded', EPOCH_MS).catalog.withPolicy(NO_AGE_LIMIT)
  let seed = 12345
  const random = () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646
  const cases = Array.from({ length: CASES }, () => {
    const latitude = Number(((Math.asin(2 * random() - 1) * 180) / Math.PI).toFixed(4))
    const longitude = Number((random() * 360 - 180).toFixed(4))
    const ms = EPOCH_MS + Math.floor((2 * random() - 1) * SPREAD_MS)
    // The route's own parsing and defaults, as for a request.
    const query = new URLSearchParams({ latitude: String(latitude), longitude: String(longitude) })
    return { query, params: parseParams(nearbyParams, (name) => query.getAll(name)), ms }
  })
  // The plain loop as the bench route runs it: satellite.js's records as it makes them.
  const plainRecords = catalog.satellites.map((s) => fullSatrec(s.elements))
  const plainLoop = (c: Catalog, q: NearbyQuery) => findNearby(c, q, (i) => plainRecords[i]!)
  const engine = new NearbyEngine({ defer: (piece) => piece(() => false), oneOffsWithoutTables: true })
  const engineFind = (c: Catalog, q: NearbyQuery) => engine.find(c, q)
  // Each case's answer, as catalogue indices: what the oracle knows.
  const answered = cases.map((c) => nearbyFound(plainLoop, catalog, c.params, new Date(c.ms)).entries.map((e) => e.index))
  let k = 0
  const oracle = (c: Catalog, query: NearbyQuery): NearbyResult => {
    const gmst = siderealTimeRad(query.instant)
    const sky = skyConditions(query.observer, query.instant, gmst)
    const selection = new NearbySelection(c, query, sky, gmst, sunlightTest(sky.sunAu))
    const { cosG, sinG, observerKm: o } = selection
    const look = lookAnglesFrom(query.observer)
    const entries: NearbyEntry[] = []
    for (const i of answered[k]!) {
      const position = positionAt(c, i, query.instant, gmst, undefined, false)
      if (!position.ok) continue
      const { eciKm: p, velocityKmS, altitudeKm, speedKmH } = position.state
      const angles = look(p.x * cosG + p.y * sinG - o.x, -p.x * sinG + p.y * cosG - o.y, p.z - o.z)
      if (!selection.inSight(angles)) continue
      const entry = selection.entry(i, { eciKm: p, velocityKmS, altitudeKm, speedKmH, latitudeDeg: undefined, longitudeDeg: undefined }, angles)
      if (entry) entries.push(entry)
    }
    return { sky, entries: byElevation(entries) }
  }
  const writer = new NearbyAnswerWriter()
  const write = (find: typeof oracle, shiftMs = 0) => writer.write(nearbyFound(find, catalog, cases[k]!.params, new Date(cases[k]!.ms + shiftMs)))
  // The same bytes from all three (and every day window made).
  for (k = 0; k < CASES; k++) {
    const plain = write(plainLoop).slice()
    for (const [name, find] of [['oracle', oracle], ['engine', engineFind]] as const) {
      if (Buffer.compare(write(find), plain) !== 0) throw new Error(`one-off bound: the ${name}'s answer differs from the plain loop's (case ${k})`)
    }
  }
  k = 0
  const app = createApp({ store: { current: catalog } as never, checkResponses: false, clock: () => EPOCH_MS })
  const path = (shiftMs: number) => {
    const { query, ms } = cases[k]!
    return `http://localhost/api/v1/satellites/nearby?${query}&time=${new Date(ms + shiftMs).toISOString()}`
  }
  // The app's first requests, before the rounds: its writer's rows (one per writer) and the JIT's warm-up.
  for (k = 0; k < CASES; k++) await (await app.handle(new Request(path(-5_000)))).arrayBuffer()
  k = 0
  /** CPU per call of `fn` over `count` cases, ms; after a full collection, so that no round pays for the garbage of the one before. */
  const cpu = async (fn: () => unknown, count: number): Promise<number> => {
    Bun.gc(true)
    const started = process.cpuUsage()
    for (let j = 0; j < count; j++, k = (k + 1) % CASES) {
      const out = fn()
      if (out instanceof Promise) await out
    }
    const used = process.cpuUsage(started)
    return (used.user + used.system) / 1000 / count
  }
  const rounds = { plain: [] as number[], oracle: [] as number[], engine: [] as number[], request: [] as number[] }
  for (let r = 1; r <= ROUNDS; r++) {
    // The engine's instants moved by 20 s a round, and the requests' by 10 s more: a 10 s interval asked
    // for once (a second ask makes its position tables, as the executable does for a repeated instant).
    rounds.plain.push(await cpu(() => write(plainLoop), 10))
    rounds.oracle.push(await cpu(() => write(oracle), 100))
    rounds.engine.push(await cpu(() => write(engineFind, -20_000 * r), 100))
    rounds.request.push(await cpu(async () => (await app.handle(new Request(path(-20_000 * r - 10_000)))).arrayBuffer(), 100))
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
  const engineMs = median(rounds.engine)
  return {
    listed: answered.reduce((sum, a) => sum + a.length, 0) / CASES,
    plainMs: median(rounds.plain),
    engineMs,
    oracleMs: median(rounds.oracle),
    restMs: Math.max(0, median(rounds.request) - engineMs),
  }
}

/** A search's whole requests (`searchMs` and the rest) against the plain loop's: how many times as many per CPU second. */
export function oneOffBoundRatio(b: OneOffBound, searchMs: number): number {
  return (b.plainMs + b.restMs) / (searchMs + b.restMs)
}

/** The figures as a Markdown table: each search's ratio to the plain loop, whole requests. */
export function oneOffBoundTable(b: OneOffBound): string {
  const ratio = (ms: number) => `${oneOffBoundRatio(b, ms).toFixed(1)}×`
  const ms = (x: number) => `${x.toFixed(3)} ms`
  return [
    '| search at a one-off instant near the epoch | search and answer, CPU | whole request (+ the rest) | vs the plain loop |',
    '|---|---|---|---|',
    `| plain loop (every satellite) | ${ms(b.plainMs)} | ${ms(b.plainMs + b.restMs)} | 1× |`,
    `| engine (day windows) | ${ms(b.engineMs)} | ${ms(b.engineMs + b.restMs)} | ${ratio(b.engineMs)} |`,
    `| oracle (only the ${b.listed.toFixed(0)} satellites answered, a filter for free) | ${ms(b.oracleMs)} | ${ms(b.oracleMs + b.restMs)} | ${ratio(b.oracleMs)} |`,
  ].join('\n')
}

if (import.meta.main) console.log(oneOffBoundTable(await oneOffBound()))
