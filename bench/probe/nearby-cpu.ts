/**
 * CPU per /nearby request, in process: app.handle over the embedded catalogue
 * (as the executable: checkResponses off, --max-element-age off, tables warmed),
 * with the observers and instants of bench/random-observer.lua.
 *
 *   bun bench/probe/nearby-cpu.ts [now|epoch|both] [requests]
 */
import { createApp } from '../../src/http/app.ts'
import { catalogFromSnapshot } from '../../src/domain/catalog/snapshot.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { loadEmbeddedSnapshot } from '../../src/io/embedded.ts'

const mode = process.argv[2] ?? 'both'
const n = Number(process.argv[3] ?? 3000)
const EPOCH_S = 1_780_181_400
const catalog = catalogFromSnapshot(await loadEmbeddedSnapshot(), 'embedded', Date.now()).catalog
const app = createApp({ store: new CatalogStore(catalog, { maxElementAgeMs: null }), checkResponses: false, warm: true, operations: {} })

let seed = 12345
const random = () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646
function path(nearEpoch: boolean): string {
  const lat = (Math.asin(2 * random() - 1) * 180) / Math.PI
  const lon = random() * 360 - 180
  let time = ''
  if (nearEpoch) {
    const s = EPOCH_S + Math.floor((2 * random() - 1) * 20 * 86400)
    time = `&time=${new Date(s * 1000 + Math.floor(random() * 1000)).toISOString()}`
  }
  return `/api/v1/satellites/nearby?latitude=${lat.toFixed(4)}&longitude=${lon.toFixed(4)}${time}`
}

async function run(nearEpoch: boolean, count: number): Promise<{ cpuMs: number; bytes: number }> {
  let bytes = 0
  const before = process.cpuUsage()
  for (let i = 0; i < count; i++) {
    const res = await app.handle(new Request(`http://localhost${path(nearEpoch)}`))
    bytes += (await res.arrayBuffer()).byteLength
    if (res.status !== 200) throw new Error(`status ${res.status}`)
    if (i % 50 === 0) await Bun.sleep(0) // let deferred table filling run
  }
  const used = process.cpuUsage(before)
  return { cpuMs: (used.user + used.system) / 1000 / count, bytes: bytes / count }
}

await Bun.sleep(500)
for (const kind of mode === 'both' ? ['now', 'epoch'] : [mode]) {
  const nearEpoch = kind === 'epoch'
  // Warm-up: JIT, and for the near-epoch instants the windows of the 40 days.
  await run(nearEpoch, nearEpoch ? 600 : 500)
  const results = []
  for (let r = 0; r < 3; r++) results.push(await run(nearEpoch, n))
  console.log(`${kind}: CPU ms/request ${results.map((r) => r.cpuMs.toFixed(3)).join(' ')}  (answer ${(results[0]!.bytes / 1024).toFixed(1)} KiB)`)
}
