/**
 * Where a /nearby request's CPU goes, in process (best of rounds, so other work on
 * the machine shows less): the search (engine.find), the answer's object and its JSON,
 * the same JSON written by NearbyAnswerWriter, and the whole request through app.handle; at "now" (tables ready) and at one-off
 * instants near the epoch, with the observers and instants of bench/random-observer.lua.
 *
 *   bun bench/probe/nearby-parts.ts [now|epoch]
 */
import { createApp } from '../../src/http/app.ts'
import { catalogFromSnapshot } from '../../src/domain/catalog/snapshot.ts'
import { NearbyEngine } from '../../src/domain/nearby/engine.ts'
import type { NearbyQuery, NearbyResult } from '../../src/domain/nearby/selection.ts'
import { NO_AGE_LIMIT } from '../../src/domain/orbit/validity.ts'
import { parseParams } from '../../src/http/plugins/params.ts'
import { nearbyAnswerObject, nearbyFound, nearbyParams } from '../../src/http/routes/nearby/index.ts'
import { NearbyAnswerWriter } from '../../src/http/routes/nearby/answer-writer.ts'
import { loadEmbeddedSnapshot } from '../../src/io/embedded.ts'

const kind = process.argv[2] ?? 'now'
const catalog = catalogFromSnapshot(await loadEmbeddedSnapshot(), 'embedded', Date.now()).catalog.withPolicy(NO_AGE_LIMIT)
const EPOCH_MS = 1_780_181_400_000
const NOW = Date.UTC(2026, 10, 25, 18, 0, 0)
let seed = 12345
const random = () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646
const N = 400
const cases = Array.from({ length: N }, () => {
  const latitude = Number(((Math.asin(2 * random() - 1) * 180) / Math.PI).toFixed(4))
  const longitude = Number((random() * 360 - 180).toFixed(4))
  const ms = kind === 'epoch' ? EPOCH_MS + Math.floor((2 * random() - 1) * 20 * 86_400_000) : NOW + Math.floor(random() * 10_000)
  // The route's own parsing and defaults, as for a request.
  const query = new URLSearchParams({ latitude: String(latitude), longitude: String(longitude) })
  const params = parseParams(nearbyParams, (name) => query.getAll(name))
  return { params, instant: new Date(ms), path: `/api/v1/satellites/nearby?${query}${kind === 'epoch' ? `&time=${new Date(ms).toISOString()}` : ''}` }
})
const query = (c: (typeof cases)[0]): NearbyQuery => ({
  observer: { latitudeDeg: c.params.latitude, longitudeDeg: c.params.longitude, altitudeM: 0 },
  instant: c.instant,
  minElevationDeg: 10,
  azimuthFromDeg: 0,
  azimuthToDeg: 360,
  visibleOnly: false,
  magnitudeLimit: 4.5,
  geoposition: false,
})
// "now": the tables of the 10 s interval made first; one-offs: an engine that answers every instant without tables.
const engine = new NearbyEngine({ defer: (piece) => piece(() => false), oneOffsWithoutTables: kind === 'epoch' })
const app = createApp({ store: { current: catalog } as never, checkResponses: false, clock: () => NOW })
const results: NearbyResult[] = cases.map((c) => engine.find(catalog, query(c)))

/** CPU per call of `fn`, µs: the least and the median over `rounds` rounds of ROUND calls (the least shows the work when nothing else ran). */
const ROUND = 50
async function best(name: string, fn: (c: (typeof cases)[0], k: number) => unknown, rounds = 40): Promise<void> {
  const times: number[] = []
  let k = 0
  for (let r = 0; r < rounds; r++) {
    const started = process.cpuUsage()
    for (let j = 0; j < ROUND; j++, k = (k + 1) % N) {
      const out = fn(cases[k]!, k)
      if (out instanceof Promise) await out
    }
    const used = process.cpuUsage(started)
    times.push((used.user + used.system) / 1000 / ROUND)
  }
  times.sort((a, b) => a - b)
  console.log(`${name.padEnd(46)} least ${(times[0]! * 1000).toFixed(0).padStart(5)} µs  median ${(times[rounds >> 1]! * 1000).toFixed(0).padStart(5)} µs`)
}

console.log(`${kind}: ${(results.reduce((s, r) => s + r.entries.length, 0) / N).toFixed(0)} satellites per answer`)
await best('search (engine.find)', (c) => engine.find(catalog, query(c)))
await best('answer object (search done)', (c, k) => nearbyAnswerObject(nearbyFound(() => results[k]!, catalog, c.params, c.instant)))
await best('answer object + JSON.stringify', (c, k) => JSON.stringify(nearbyAnswerObject(nearbyFound(() => results[k]!, catalog, c.params, c.instant))))
const writer = new NearbyAnswerWriter()
await best('answer bytes (NearbyAnswerWriter)', (c, k) => writer.write(nearbyFound(() => results[k]!, catalog, c.params, c.instant)))
// One-offs: each call a 10 s interval no call asked for before (a second ask of an interval makes its tables, as the engine should).
let calls = 0
const fresh = (c: (typeof cases)[0]) =>
  kind === 'epoch' ? c.path.replace(/time=[^&]*/, `time=${new Date(c.instant.getTime() + 20_000 * Math.floor(calls++ / N)).toISOString()}`) : c.path
await best('whole request (app.handle)', async (c) => (await app.handle(new Request(`http://localhost${fresh(c)}`))).arrayBuffer())
await best('request with an empty answer (threshold 90°)', async (c) => (await app.handle(new Request(`http://localhost${fresh(c)}&elevation-threshold=90`))).arrayBuffer())
await best('healthcheck request', async () => (await app.handle(new Request('http://localhost/api/v1/service/healthcheck'))).arrayBuffer())
if (process.argv.includes('--trim')) {
  const { MemoryTrim } = await import('../../src/io/memory.ts')
  const activity = { requests: 0 }
  const trimmed = createApp({ store: { current: catalog } as never, checkResponses: false, clock: () => NOW, activity })
  await best('whole request, without the memory trim', async (c) => (await trimmed.handle(new Request(`http://localhost${fresh(c)}`))).arrayBuffer())
  new MemoryTrim(activity).start()
  await best('whole request, with the memory trim', async (c) => {
    const r = await (await trimmed.handle(new Request(`http://localhost${fresh(c)}`))).arrayBuffer()
    await Bun.sleep(0)
    return r
  }, 60)
}
