/**
 * Issue 18's measures of the executable under hostile load (part of `make bench`;
 * also `bun bench/hardening.ts [--duration 5]` on its own):
 * - the healthcheck's latency, probed every 20 ms, while wrk floods 10-day
 *   passes at 64 connections (goal: p99 < 50 ms);
 * - the CPU the service spends on 64 requests for 10-day passes whose clients
 *   hang up at once (goal: < 0.3 s in all);
 * - the highest RSS while wrk floods each kind of documented request at 64
 *   connections (tracks as JSON and GeoJSON, passes, the list, a search, the
 *   GP feed in every format, with and without compression) and while 64
 *   clients hold position streams (goal: ≤ 200 MB for every one).
 */
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'

export interface HardeningServer {
  port: number
  pid: number
}

export interface Hardening {
  healthP50Ms: number
  healthP99Ms: number
  healthMaxMs: number
  passesRps: number
  passesRefused: number
  passesRssPeakMb: number
  abandonedCpuS: number
  trackRssPeakMb: number
  trackRps: number
  /** Per flood of FLOODS (and the streams): the highest RSS, MB, and the rate answered. */
  floods: { name: string; rssPeakMb: number; rps: number }[]
}

/** Documented requests a flood may be made of: path, and the Accept-Encoding asked for (none: identity). */
const FLOODS: { name: string; path: string; encoding?: string }[] = [
  { name: 'the whole list (12k satellites), identity', path: '/api/v1/satellites' },
  { name: 'the whole list, gzip', path: '/api/v1/satellites', encoding: 'gzip' },
  { name: 'the whole list, br', path: '/api/v1/satellites', encoding: 'br' },
  { name: 'a search (name contains "starlink", page of 1000)', path: '/api/v1/satellites?search=starlink&page-size=1000' },
  { name: 'GP feed, the starlink group (~10k) as TLE', path: '/NORAD/elements/gp.php?GROUP=starlink&FORMAT=tle' },
  { name: 'GP feed, the starlink group as OMM JSON, gzip', path: '/NORAD/elements/gp.php?GROUP=starlink&FORMAT=json', encoding: 'gzip' },
  { name: 'GP feed, the starlink group as CSV, br', path: '/NORAD/elements/gp.php?GROUP=starlink&FORMAT=csv', encoding: 'br' },
  { name: '10,000-point tracks as GeoJSON, gzip', path: '/api/v1/satellites/25544/positions?from=2026-05-30T00:00:00Z&to=2026-06-05T22:39:00Z&step=60&format=geojson', encoding: 'gzip' },
  { name: 'nearby at a one-off instant', path: '/api/v1/satellites/nearby?latitude=48.85&longitude=2.35&time=2026-05-30T21:03:17.123Z' },
]

const PASSES_10_DAYS = '/api/v1/satellites/25544/passes?latitude=51.5&longitude=-0.13&days=10&time=2026-05-30T00:00:00Z'
const TRACK_10K = '/api/v1/satellites/25544/positions?from=2026-05-30T00:00:00Z&to=2026-06-05T22:39:00Z&step=60'

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024
/** CPU seconds the process has used (user + system). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

async function flood(url: string, connections: number, seconds: number, encoding?: string): Promise<{ rps: number; non2xx: number }> {
  const headers = encoding ? ['-H', `Accept-Encoding: ${encoding}`] : []
  const proc = Bun.spawn(['wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '20s', ...headers, url], { stdout: 'pipe', stderr: 'pipe' })
  const out = await new Response(proc.stdout).text()
  await proc.exited
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]), non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) }
}

export async function hardening(server: HardeningServer, seconds: number): Promise<Hardening> {
  const base = `http://127.0.0.1:${server.port}`

  // 1. The healthcheck while 10-day passes flood the service.
  const latencies: number[] = []
  let flooding = true
  const probe = (async () => {
    await Bun.sleep(500)
    while (flooding) {
      const started = performance.now()
      const response = await fetch(`${base}/api/v1/service/healthcheck`)
      await response.arrayBuffer()
      latencies.push(performance.now() - started)
      await Bun.sleep(20)
    }
  })()
  let passesPeak = rssMb(server.pid)
  const passesSampler = setInterval(() => {
    passesPeak = Math.max(passesPeak, rssMb(server.pid))
  }, 100)
  const passes = await flood(`${base}${PASSES_10_DAYS}`, 64, seconds)
  clearInterval(passesSampler)
  flooding = false
  await probe
  latencies.sort((a, b) => a - b)
  await Bun.sleep(1000)

  // 2. 64 clients ask for 10-day passes and hang up at once.
  const cpuBefore = cpuSeconds(server.pid)
  await Promise.all(
    Array.from(
      { length: 64 },
      (_, i) =>
        new Promise<void>((resolve) => {
          const socket = connect(server.port, '127.0.0.1', () => {
            socket.write(`GET ${PASSES_10_DAYS.replace('latitude=51.5', `latitude=${(i % 60) + 0.5}`)} HTTP/1.1\r\nHost: localhost\r\n\r\n`)
            setTimeout(() => {
              socket.destroy()
              resolve()
            }, 10)
          })
          socket.on('error', () => resolve())
        }),
    ),
  )
  // Until the service has stopped spending CPU on them.
  let cpu = cpuSeconds(server.pid)
  for (let i = 0; i < 40; i++) {
    await Bun.sleep(250)
    const now = cpuSeconds(server.pid)
    if (now - cpu < 0.01) break
    cpu = now
  }
  const abandonedCpuS = cpuSeconds(server.pid) - cpuBefore

  // 3. RSS under a flood of 10,000-point tracks.
  let peak = rssMb(server.pid)
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(server.pid))
  }, 100)
  const track = await flood(`${base}${TRACK_10K}`, 64, seconds)
  clearInterval(sampler)

  // 4. RSS under a flood of each other kind, and with 64 position streams held open.
  const floods: Hardening['floods'] = []
  const peakDuring = async (name: string, load: () => Promise<number>) => {
    let highest = rssMb(server.pid)
    const sampling = setInterval(() => {
      highest = Math.max(highest, rssMb(server.pid))
    }, 100)
    const rps = await load()
    clearInterval(sampling)
    floods.push({ name, rssPeakMb: highest, rps })
  }
  for (const f of FLOODS) await peakDuring(f.name, async () => (await flood(`${base}${f.path}`, 64, seconds, f.encoding)).rps)
  await peakDuring('64 position streams with an observer, held open', async () => {
    const aborts = Array.from({ length: 64 }, () => new AbortController())
    const opened = aborts.map(async (abort, i) => {
      const response = await fetch(`${base}/api/v1/satellites/25544/stream?latitude=${i - 32}&longitude=10`, { signal: abort.signal })
      const reader = response.body!.getReader()
      try {
        for (;;) if ((await reader.read()).done) break
      } catch {}
    })
    await Bun.sleep(seconds * 1000)
    for (const abort of aborts) abort.abort()
    await Promise.allSettled(opened)
    return 0
  })

  return {
    healthP50Ms: quantile(latencies, 0.5),
    healthP99Ms: quantile(latencies, 0.99),
    healthMaxMs: latencies.at(-1)!,
    passesRps: passes.rps,
    passesRefused: passes.non2xx,
    passesRssPeakMb: passesPeak,
    abandonedCpuS,
    trackRssPeakMb: peak,
    trackRps: track.rps,
    floods,
  }
}

export function hardeningTable(h: Hardening): string {
  const mark = (ok: boolean) => (ok ? 'met' : 'missed')
  return [
    '| measure (issue 18) | result | goal |',
    '|---|---|---|',
    `| healthcheck while 10-day passes flood at 64 connections (probe every 20 ms) | p50 ${h.healthP50Ms.toFixed(1)} ms, p99 ${h.healthP99Ms.toFixed(1)} ms, max ${h.healthMaxMs.toFixed(1)} ms | p99 < 50 ms: ${mark(h.healthP99Ms < 50)} |`,
    `| 10-day passes answered meanwhile | ${h.passesRps.toFixed(1)} req/s, ${h.passesRefused} refused (503), RSS ≤ ${h.passesRssPeakMb.toFixed(0)} MB | RSS ≤ 200 MB: ${mark(h.passesRssPeakMb <= 200)} |`,
    `| CPU spent on 64 10-day passes whose clients hung up at once | ${h.abandonedCpuS.toFixed(2)} s | < 0.3 s: ${mark(h.abandonedCpuS < 0.3)} |`,
    `| highest RSS, 10,000-point tracks at 64 connections | ${h.trackRssPeakMb.toFixed(0)} MB (${h.trackRps.toFixed(0)} req/s) | ≤ 200 MB: ${mark(h.trackRssPeakMb <= 200)} |`,
    ...h.floods.map(
      (f) => `| highest RSS, ${f.name}${f.rps > 0 ? ' at 64 connections' : ''} | ${f.rssPeakMb.toFixed(0)} MB${f.rps > 0 ? ` (${f.rps.toFixed(0)} req/s)` : ''} | ≤ 200 MB: ${mark(f.rssPeakMb <= 200)} |`,
    ),
  ].join('\n')
}

if (import.meta.main) {
  const args = process.argv.slice(2)
  const seconds = Number(args[args.indexOf('--duration') + 1] || 5)
  const port = Number(args[args.indexOf('--port') + 1])
  const pid = Number(args[args.indexOf('--pid') + 1])
  console.log(hardeningTable(await hardening({ port, pid }, seconds)))
}
