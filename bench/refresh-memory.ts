/**
 * What a refresh round costs in memory, measured on the compiled executable
 * (dist/sattrack) against the loopback stand-in for CelesTrak
 * (test/fixtures/upstream.ts): the peak RSS of the process (VmHWM), its RSS
 * after the round, the satellites it then holds, the cache it wrote, and a
 * restart from that cache (time to healthy, peak RSS). Only loopback is
 * contacted. Prints one Markdown table (docs/operations.md quotes it).
 *
 *   bun bench/refresh-memory.ts [--only NAME]
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseTleText } from '../src/domain/catalog/elements.ts'
import type { OmmRecord } from '../src/domain/catalog/omm.ts'
import { MAX_BODY_BYTES, MAX_ROUND_BYTES, MAX_SATELLITES } from '../src/io/refresh.ts'
import { ommRecord, recordsOf, syntheticGroup } from '../test/fixtures/synthetic.ts'
import { startMockUpstream } from '../test/fixtures/upstream.ts'

const root = join(import.meta.dir, '..')
const executable = join(root, 'dist', 'sattrack')
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined

/** The embedded snapshot's groups as OMM records (what CelesTrak would serve), epochs moved a day on so every set is new. */
function embeddedGroups(): Record<string, OmmRecord[]> {
  const bundle = JSON.parse(readFileSync(join(root, 'data/snapshot.json'), 'utf8')) as { groups: Record<string, string> }
  const groups: Record<string, OmmRecord[]> = {}
  for (const [group, text] of Object.entries(bundle.groups)) {
    groups[group] = recordsOf(parseTleText(text).elements.map((e) => ({ ...e, epochMs: e.epochMs + 86_400_000, epochUs: (e.epochUs ?? e.epochMs * 1000) + 86_400_000_000 })))
  }
  return groups
}

/** Distinct synthetic satellites numbered from `firstId` whose OMM JSON is just under `bytes`. */
function groupOfSize(firstId: number, bytes: number): OmmRecord[] {
  const perRecord = JSON.stringify(syntheticGroup(firstId, 100)).length / 100
  let records = syntheticGroup(firstId, Math.floor(bytes / perRecord))
  while (JSON.stringify(records).length > bytes) records = records.slice(0, Math.floor(records.length * 0.99))
  return records
}

interface Scenario {
  name: string
  /** What the upstream serves, per group. */
  groups: () => Record<string, OmmRecord[]>
}

const MB = 1024 * 1024
const scenarios: Scenario[] = [
  { name: 'the 8 embedded groups, every set new (5 MB of OMM JSON)', groups: embeddedGroups },
  {
    name: `starlink grows the catalogue to the ${MAX_SATELLITES.toLocaleString('en')}-satellite limit`,
    groups: () => {
      const groups = embeddedGroups()
      const ids = new Set(Object.values(groups).flatMap((records) => records.map((r) => r.NORAD_CAT_ID)))
      groups.starlink = [...groups.starlink!, ...syntheticGroup(400_000, MAX_SATELLITES - ids.size)]
      return groups
    },
  },
  {
    name: `two bodies at the ${MAX_BODY_BYTES / MB} MB body limit, all new satellites`,
    groups: () => ({ ...embeddedGroups(), starlink: groupOfSize(400_000, MAX_BODY_BYTES - 1024), oneweb: groupOfSize(600_000, MAX_BODY_BYTES - 1024) }),
  },
  {
    name: 'one body as large as the limits let it be, repeating one satellite',
    groups: () => {
      const groups = embeddedGroups()
      const one = ommRecord({ NORAD_CAT_ID: 25544, EPOCH: '2026-05-31T12:00:00.000000' })
      // As large as the body limit and what the other groups leave of the round's bytes allow.
      const others = Object.entries(groups).reduce((n, [g, records]) => n + (g === 'stations' ? 0 : JSON.stringify(records).length), 0)
      const room = Math.min(MAX_BODY_BYTES, MAX_ROUND_BYTES - others) - 2048 - JSON.stringify(groups.stations).length
      groups.stations = [...groups.stations!, ...Array.from({ length: Math.floor(room / (JSON.stringify(one).length + 1)) }, () => one)]
      return groups
    },
  },
]

function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) / 1024
}

async function startService(args: string[]) {
  const began = performance.now()
  const proc = Bun.spawn([executable, '--host', '127.0.0.1', '--port', '0', '--log-format', 'json', ...args], { stdout: 'pipe', stderr: 'inherit' })
  const lines: Record<string, any>[] = []
  ;(async () => {
    let pending = ''
    for await (const chunk of proc.stdout) {
      pending += new TextDecoder().decode(chunk)
      let nl: number
      while ((nl = pending.indexOf('\n')) >= 0) {
        try {
          lines.push(JSON.parse(pending.slice(0, nl)))
        } catch {}
        pending = pending.slice(nl + 1)
      }
    }
  })()
  for (;;) {
    const listening = lines.find((l) => l.msg === 'listening')
    if (listening) {
      const url = String(listening.url)
      return {
        url,
        pid: proc.pid,
        lines,
        startMs: performance.now() - began,
        status: async () => (await fetch(`${url}/api/v1/service/status`)).json() as Promise<any>,
        stop: async () => {
          proc.kill('SIGTERM')
          await proc.exited
        },
      }
    }
    if (proc.exitCode !== null) throw new Error(`the service exited with ${proc.exitCode}`)
    if (performance.now() - began > 60_000) throw new Error('the service did not start in 60 s')
    await Bun.sleep(10)
  }
}

const rows: string[] = []
for (const scenario of scenarios) {
  if (only && !scenario.name.includes(only)) continue
  const groups = scenario.groups()
  const upstream = startMockUpstream(groups)
  const dataDir = mkdtempSync(join(tmpdir(), 'sattrack-refresh-memory-'))
  try {
    const args = ['--refresh-url', upstream.url, '--refresh-interval', '1h', '--refresh-timeout', '60s', '--data-dir', dataDir, '--refresh-groups', Object.keys(groups).join(',')]
    const service = await startService(args)
    const before = procStatus(service.pid, 'VmRSS')
    let status: any
    for (;;) {
      status = await service.status()
      if (status.refresh.lastAttemptAt && !status.refresh.inProgress) break
      await Bun.sleep(50)
    }
    await Bun.sleep(1500) // the cache write, and the collection after the warm-up
    const peak = procStatus(service.pid, 'VmHWM')
    const after = procStatus(service.pid, 'VmRSS')
    await service.stop()
    const cacheMb = statSync(join(dataDir, 'catalog-cache.json'), { throwIfNoEntry: false })?.size ?? 0
    // A restart from the cache the round wrote (no upstream: a round would only confirm it).
    await upstream.stop()
    const restart = await startService(['--data-dir', dataDir])
    const restartPeak = procStatus(restart.pid, 'VmHWM')
    const restarted = await restart.status()
    await restart.stop()
    const failed = Object.keys(status.refresh.groupErrors ?? {})
    const row = `| ${scenario.name} | ${before.toFixed(0)} | ${peak.toFixed(0)} | ${after.toFixed(0)} | ${status.catalog.satellites}${failed.length ? ` (refused: ${failed.join(', ')})` : ''} | ${(cacheMb / MB).toFixed(1)} | ${(restart.startMs / 1000).toFixed(2)} s, ${restartPeak.toFixed(0)} MB, ${restarted.catalog.satellites} |`
    console.error(row, JSON.stringify(status.refresh.groupErrors))
    rows.push(row)
  } finally {
    await upstream.stop().catch(() => {})
    rmSync(dataDir, { recursive: true, force: true })
  }
}
console.log(
  [
    `Limits: ${MAX_BODY_BYTES / MB} MB per body, ${MAX_ROUND_BYTES / MB} MB for the payloads held (a round's and those kept from earlier ones), ${MAX_SATELLITES.toLocaleString('en')} satellites.`,
    '',
    '| upstream serves | RSS before, MB | peak RSS, MB | RSS after, MB | satellites after | cache, MB | restart from the cache: time to listening, peak RSS, satellites |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n'),
)
