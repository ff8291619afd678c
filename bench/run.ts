/**
 * `make bench`: measures the compiled executable on a loopback port with wrk,
 * next to the plain satellite.js loop and a hello-world route in the same run,
 * at 12k (embedded) and 30k (synthetic) satellites; prints one table and
 * writes it, with the machine, to docs/benchmarks.md.
 *
 *   bun bench/run.ts [--duration 5] [--rounds 5] [--round-duration 3] [--out docs/benchmarks.md]
 */
import { cpus, totalmem } from 'node:os'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hardening, hardening, hardeningTable } from './hardening.ts'
import { speedups, speedupsTable } from './speedups.ts'
import { ROUNDS as BOUND_ROUNDS, oneOffBound, oneOffBoundRatio, oneOffBoundTable } from './one-off-bound.ts'

const root = join(import.meta.dir, '..')
const executable = join(root, 'dist', 'sattrack')
const args = process.argv.slice(2)
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1]! : fallback
}
const duration = Number(option('--duration', '5'))
const outFile = option('--out', join(root, 'docs', 'benchmarks.md'))
const synthetic30k = option('--snapshot-30k', join(root, 'bench', 'data', '30k'))
const nearbyScript = join(import.meta.dir, 'random-observer.lua')
const nightScript = join(import.meta.dir, 'random-night.lua')

interface Measure {
  name: string
  rps: number
  p50Ms: number
  p99Ms: number
  connections: number
  /** The service's highest RSS while the row ran (sampled every 100 ms), MB. */
  rssPeakMb: number
  /** CPU the instance (supervisor and workers) spent per request answered, ms, and the cores it used on average. */
  cpuMsPerRequest: number
  cores: number
  /** Rows measured in rounds (see `rounds`): requests/s in each round, in the order run; the row's other figures are the median round's. */
  roundsRps?: number[]
  /** Rows measured in rounds: each round's p50 and p99 (ms), in the order run. */
  roundsP50Ms?: number[]
  roundsP99Ms?: number[]
}

/** How many times the rows that decide a ratio goal are measured, interleaved with the rows they are compared with, and for how long each time (s). */
const ROUNDS = Number(option('--rounds', '5'))
const ROUND_S = Number(option('--round-duration', '3'))

/**
 * Runs rows in rounds, interleaved (A B C, A B C, A B C): on a shared VM the
 * machine's speed drifts by ±30 % between rows a minute apart, and a ratio of
 * two rows measured once showed that drift, not the service. Each row's figures
 * are those of its median round, with every round's requests/s kept; a ratio
 * goal is decided per round (rows measured next to each other) and its median
 * taken (`pairedRatio`).
 */
async function rounds(rows: (() => Promise<Measure>)[], count = ROUNDS): Promise<Measure[]> {
  const runs: Measure[][] = rows.map(() => [])
  for (let round = 0; round < count; round++) for (let i = 0; i < rows.length; i++) runs[i]!.push(await rows[i]!())
  return runs.map((measures) => {
    const sorted = [...measures].sort((a, b) => a.rps - b.rps)
    // RSS: the highest of any round.
    return {
      ...sorted[Math.floor(sorted.length / 2)]!,
      roundsRps: measures.map((m) => m.rps),
      roundsP50Ms: measures.map((m) => m.p50Ms),
      roundsP99Ms: measures.map((m) => m.p99Ms),
      rssPeakMb: Math.max(...measures.map((m) => m.rssPeakMb)),
    }
  })
}

/** A ratio of two rows measured in the same rounds: the median of the per-round ratios, and their range. */
interface Ratio {
  median: number
  low: number
  high: number
}

function pairedRatio(numerator: Measure, denominator: Measure, figure: RoundFigure = 'rps', denominatorFigure: RoundFigure = figure): Ratio {
  return medianRatio(perRound(numerator, figure), perRound(denominator, denominatorFigure))
}

/** A figure of a row that rounds keep for each round. */
type RoundFigure = 'rps' | 'p50Ms' | 'p99Ms'

/** A row's `figure` in each of its rounds (a row measured once: its one figure). */
function perRound(row: Measure, figure: RoundFigure): number[] {
  const rounds = { rps: row.roundsRps, p50Ms: row.roundsP50Ms, p99Ms: row.roundsP99Ms }[figure]
  return rounds ?? [row[figure]]
}

/** The median and range of the ratios a[i] / b[i], round by round. */
function medianRatio(a: number[], b: number[]): Ratio {
  const ratios = a.slice(0, b.length).map((value, i) => value / b[i]!).sort((x, y) => x - y)
  return { median: ratios[Math.floor(ratios.length / 2)]!, low: ratios[0]!, high: ratios.at(-1)! }
}

/** A ratio as a multiple, `2.03× (rounds 1.95–2.10×)`, or, with `inverse`, as a fraction, `1/38.2 (rounds 1/41.0–1/36.3)`. */
function showRatio(r: Ratio, digits: number, inverse = false): string {
  const one = (x: number) => (inverse ? `1/${(1 / x).toFixed(digits)}` : `${x.toFixed(digits)}×`)
  return r.low === r.high ? one(r.median) : `${one(r.median)} (rounds ${one(r.low)}–${one(r.high)})`
}

/** Milliseconds from a wrk latency figure such as `1.23ms`, `850.00us` or `1.02s`. */
function toMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text)
  if (!m) return Number.NaN
  const value = Number(m[1])
  return { us: value / 1000, ms: value, s: value * 1000, m: value * 60_000 }[m[2] as 'us' | 'ms' | 's' | 'm']
}

/** A process's CPU time so far (user and system), s (0 once it is gone). */
function processCpuS(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/** The CPU time of an instance: the process and the workers it started, s. */
function cpuS(pid: number): number {
  return processCpuS(pid) + childrenOf(pid).reduce((sum, child) => sum + processCpuS(child), 0)
}

async function wrk(
  pid: number,
  name: string,
  url: string,
  opts: { connections?: number; headers?: string[]; lua?: string; env?: Record<string, string>; warmupS?: number; durationS?: number } = {},
): Promise<Measure> {
  // The whole instance's RSS and CPU: with --workers, the supervisor's and every worker's.
  const connections = opts.connections ?? 8
  const seconds = opts.durationS ?? duration
  const cmd = ['wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '--timeout', '10s']
  for (const h of opts.headers ?? []) cmd.push('-H', h)
  if (opts.lua) cmd.push('-s', opts.lua)
  cmd.push(url)
  // One second of warm-up first (JIT, tables, compressed bodies), not measured.
  const warmup = cmd.map((part) => (part === `-d${seconds}s` ? `-d${opts.warmupS ?? 1}s` : part))
  await Bun.spawn(warmup, { stdout: 'ignore', stderr: 'ignore', env: { ...process.env, ...opts.env } }).exited
  const cpuBefore = cpuS(pid)
  const began = performance.now()
  const proc = Bun.spawn(cmd, { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ...opts.env } })
  const peakRss = sampleRssPeak(pid, 100)
  const out = await new Response(proc.stdout).text()
  await proc.exited
  const cpuSpent = cpuS(pid) - cpuBefore
  const elapsedS = (performance.now() - began) / 1000
  const rssPeakMb = peakRss()
  const answered = Number(/(\d+) requests in/.exec(out)?.[1])
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1])
  const p50 = toMs(/^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? '')
  const p99 = toMs(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? '')
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(out)
  if (non2xx) console.error(`  ${name}: ${non2xx[1]} non-2xx/3xx answers`)
  const measure = { name, rps, p50Ms: p50, p99Ms: p99, connections, rssPeakMb, cpuMsPerRequest: (cpuSpent * 1000) / answered, cores: cpuSpent / elapsedS }
  console.error(
    `  ${name.padEnd(34)} ${rps.toFixed(0).padStart(8)} req/s  p50 ${p50.toFixed(2)} ms  p99 ${p99.toFixed(2)} ms  RSS ≤ ${rssPeakMb.toFixed(0)} MB  CPU ${measure.cpuMsPerRequest.toFixed(3)} ms/req on ${measure.cores.toFixed(2)} cores`,
  )
  return measure
}

interface Server {
  port: number
  pid: number
  startupMs: number
  stop: () => Promise<void>
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

/** Starts the executable and returns when its healthcheck answers 200, with the time that took (with --workers: the first worker's). */
async function start(extraArgs: string[]): Promise<Server> {
  const port = await freePort()
  const dataHome = mkdtempSync(join(tmpdir(), 'sattrack-bench-'))
  const began = performance.now()
  // No limit on element age: at "now" the embedded elements are months old, and with the default limit every
  // position would be refused at once; the benchmark measures the propagation work (decay and plausibility still apply).
  const proc = Bun.spawn([executable, '--host', '127.0.0.1', '--port', String(port), '--bench-routes', '--max-element-age', 'off', ...extraArgs], {
    stdout: 'ignore',
    stderr: 'inherit',
    env: { PATH: process.env.PATH ?? '', XDG_DATA_HOME: dataHome, HOME: dataHome },
  })
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/service/healthcheck`)
      if (res.status === 200) break
    } catch {}
    if (performance.now() - began > 20_000) throw new Error('the service did not become healthy in 20 s')
    await Bun.sleep(2)
  }
  const startupMs = performance.now() - began
  return {
    port,
    pid: proc.pid,
    startupMs,
    stop: async () => {
      proc.kill('SIGTERM')
      await proc.exited
    },
  }
}

/** A process's RSS, MB (0 once it is gone). */
function processRssMb(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024
  } catch {
    return 0
  }
}

/** The processes a process started (its workers, with --workers). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/** The RSS of an instance: the process and the workers it started, MB. */
function rssMb(pid: number): number {
  return processRssMb(pid) + childrenOf(pid).reduce((sum, child) => sum + processRssMb(child), 0)
}

/** Samples a process's RSS every `intervalMs` from now on; the function returned stops and gives the highest, MB. */
function sampleRssPeak(pid: number, intervalMs: number): () => number {
  let peak = rssMb(pid)
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(pid))
  }, intervalMs)
  return () => {
    clearInterval(sampler)
    return peak
  }
}

/** The embedded elements' stamp (2026-05-30T22:50Z), seconds: the one-off instants near the epoch lie within 20 days of it. */
const EPOCH_S = 1_780_181_400

/**
 * A data dir holding the cache (and its reads file) a refresh wrote: an
 * instance refreshing every group, in OMM JSON, from another instance's
 * CelesTrak-compatible feed on loopback, stopped once it has written it. A
 * restart of a refreshing instance starts from such a cache.
 */
async function refreshedDataDir(extraArgs: string[]): Promise<string> {
  const upstream = await start(extraArgs)
  const dataDir = mkdtempSync(join(tmpdir(), 'sattrack-bench-cache-'))
  const refreshing = await start([...extraArgs, '--data-dir', dataDir, '--refresh-url', `http://127.0.0.1:${upstream.port}/NORAD/elements/gp.php`, '--refresh-interval', '1h'])
  const began = performance.now()
  while (!existsSync(join(dataDir, 'catalog-cache.json'))) {
    if (performance.now() - began > 60_000) throw new Error('no cache written in 60 s')
    await Bun.sleep(50)
  }
  await refreshing.stop()
  await upstream.stop()
  return dataDir
}

async function startupMedian(extraArgs: string[], runs = 7): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const server = await start(extraArgs)
    times.push(server.startupMs)
    await server.stop()
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(runs / 2)]!
}

/**
 * The service's highest RSS (sampled every 10 ms) while nine large answers
 * none was asked for before (the list, a search and a feed of Starlink, each
 * in identity, gzip and brotli) are asked for at the same moment, and for a
 * second after: every one is built, and compressed, on the spot.
 */
async function coldBurstRssMb(server: Server): Promise<number> {
  const base = `http://127.0.0.1:${server.port}`
  const paths = ['/api/v1/satellites', '/api/v1/satellites?group=starlink', '/NORAD/elements/gp.php?GROUP=starlink&FORMAT=json']
  const peakRss = sampleRssPeak(server.pid, 10)
  const asked = paths.flatMap((path) => ['identity', 'gzip', 'br'].map((encoding) => fetch(base + path, { headers: { 'Accept-Encoding': encoding } }).then((r) => r.arrayBuffer())))
  await Promise.all(asked)
  await Bun.sleep(1000)
  return peakRss()
}

async function suite(label: string, extraArgs: string[]) {
  console.error(`\n${label}`)
  const at12k = !label.startsWith('30k')
  const startup = await startupMedian(extraArgs)
  // Issue 22: with one worker per core (12k only).
  const startupAuto = at12k ? await startupMedian([...extraArgs, '--workers', 'auto']) : Number.NaN
  // And from the data-dir cache a refresh wrote, as a refreshing instance restarts.
  const cacheDir = at12k ? await refreshedDataDir(extraArgs) : null
  const startupCache = cacheDir ? await startupMedian([...extraArgs, '--data-dir', cacheDir]) : Number.NaN
  const startupCacheAuto = cacheDir ? await startupMedian([...extraArgs, '--data-dir', cacheDir, '--workers', 'auto']) : Number.NaN
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true })
  // The burst on an instance of its own, a second after it is healthy: the answers it builds stay
  // cached (about 20 MB of bodies at 12k), which would raise every later row of the service's.
  const burstServer = await start(extraArgs)
  await Bun.sleep(1000)
  const burstRss = await coldBurstRssMb(burstServer)
  await burstServer.stop()
  console.error(`  cold burst (9 large answers at once): RSS ≤ ${burstRss.toFixed(0)} MB`)
  const server = await start(extraArgs)
  const base = `http://127.0.0.1:${server.port}`
  // The plain loop runs in a second instance of the executable: its garbage (SGP4 for the whole
  // catalogue per request) is not the service's load, and would otherwise stay in the service's RSS.
  const plainServer = await start(extraArgs)
  const plainBase = `http://127.0.0.1:${plainServer.port}`
  // The ETag of the identity list: wrk asks for no encoding, and each encoding has its own ETag.
  const listEtag = (await fetch(`${base}/api/v1/satellites`, { headers: { 'accept-encoding': 'identity' } })).headers.get('etag')!
  const nearby = (extra: string, env: Record<string, string> = {}) => ({ lua: nearbyScript, env: { NEARBY_PATH: '/api/v1/satellites/nearby', NEARBY_EXTRA: extra, ...env } })
  const plainLoop = { lua: nearbyScript, env: { NEARBY_PATH: '/bench/plain-nearby', NEARBY_EXTRA: '' } }
  // A random instant within 30 days of now per request: an interval no request asked for before.
  const oneOff = { NEARBY_SPREAD_DAYS: '30' }
  // Issue 22: a random instant (to the ms) within 20 days of the elements' epoch, as someone asking about last Tuesday.
  const nearEpoch = { NEARBY_SPREAD_DAYS: '20', NEARBY_CENTER: String(EPOCH_S) }
  const row = (name: string, url: string, opts?: Parameters<typeof wrk>[3]) => wrk(server.pid, name, url, opts)
  const plainRow = (name: string, opts: Parameters<typeof wrk>[3]) => wrk(plainServer.pid, name, plainBase, opts)
  const hello = await row('hello world', `${base}/bench/hello`)
  // The rows the ratio goals divide, in rounds (see `rounds`), each next to the rows it is divided by.
  const inRound = { durationS: ROUND_S }
  const [plain, nearbyBasic, health, geoposition, list304] = await rounds([
    () => plainRow('plain loop nearby (random observer)', { ...plainLoop, ...inRound }),
    () => row('nearby basic (random observer)', base, { ...nearby(''), ...inRound }),
    () => row('healthcheck', `${base}/api/v1/service/healthcheck`, inRound),
    () => row('geoposition (ISS, now)', `${base}/api/v1/satellites/25544/geoposition`, inRound),
    () => row('list 304', `${base}/api/v1/satellites`, { headers: [`If-None-Match: ${listEtag}`], ...inRound }),
  ])
  const results: Measure[] = [
    hello,
    health!,
    geoposition!,
    await row('iss', `${base}/api/v1/satellites/iss`),
    await row('list 200 (gzip)', `${base}/api/v1/satellites`, { headers: ['Accept-Encoding: gzip'] }),
    list304!,
    plain!,
    nearbyBasic!,
    await row('nearby extended (random observer)', base, nearby('&mode=extended')),
    await row('nearby visible-only (random observer)', base, nearby('&visible-only=true')),
    // The latency goals (p50 against the plain loop's, p99 against its own p50) in rounds too: at one connection a
    // few pauses of the VM decide a p99.
    ...(await rounds([
      () => plainRow('plain loop nearby, 1 connection', { connections: 1, ...plainLoop, ...inRound }),
      () => row('nearby basic, 1 connection', base, { connections: 1, ...nearby(''), ...inRound }),
    ])),
    await plainRow('plain loop nearby, one-off time', { lua: nearbyScript, env: { ...plainLoop.env, ...oneOff } }),
    await row('nearby basic, one-off time', base, nearby('', oneOff)),
  ]
  // Issue 4's workload ends here: its memory goal is measured on it (the rows of later issues follow on the same instance).
  const rssAfterIssue4 = rssMb(server.pid)
  const issue4RowCount = results.length
  results.push(
    // Issue 20: a night (12 h from 18:00 local time, near the data's date) for a random observer, one request at a time.
    await row('passes: a night of visible passes, whole catalogue', base, { connections: 1, lua: nightScript, env: { PASSES_EXTRA: '&visible-only=true' } }),
    await row('passes: a night, all passes of stations', base, { connections: 1, lua: nightScript, env: { PASSES_EXTRA: '&group=stations' } }),
  )
  const rss = rssMb(server.pid)
  // Issue 22 (12k only): one-off instants near the epoch on the plain loop, one worker and an instance of two
  // workers (started now, idle until its rows), in rounds; 16 connections each.
  let workersRss: { supervisorMb: number; workersMb: number[] } | undefined
  if (at12k) {
    const two = await start([...extraArgs, '--workers', '2'])
    const twoBase = `http://127.0.0.1:${two.port}`
    const twoRow = (name: string, url: string, opts?: Parameters<typeof wrk>[3]) => wrk(two.pid, name, url, opts)
    // Six seconds of warm-up the first time: the windows of the 40 days (two days each) are made as first asked for (~30 ms each, in each worker).
    const firstWarmup = () => {
      let runs = 0
      return () => (runs++ === 0 ? 6 : 1)
    }
    const [plainWarmup, oneWarmup, twoWarmup] = [firstWarmup(), firstWarmup(), firstWarmup()]
    results.push(
      ...(await rounds([
        () => plainRow('plain loop nearby, one-off instant near the epoch', { connections: 16, warmupS: plainWarmup(), lua: nearbyScript, env: { ...plainLoop.env, ...nearEpoch }, ...inRound }),
        () => row('nearby basic, one-off instant near the epoch', base, { connections: 16, warmupS: oneWarmup(), ...nearby('', nearEpoch), ...inRound }),
        () => twoRow('2 workers: nearby basic, one-off instant near the epoch', twoBase, { connections: 16, warmupS: twoWarmup(), ...nearby('', nearEpoch), ...inRound }),
      ])),
    )
    await server.stop()
    await plainServer.stop()
    results.push(await twoRow('2 workers: nearby basic (random observer)', twoBase, { connections: 16, ...nearby('') }))
    results.push(await twoRow('2 workers: healthcheck', `${twoBase}/api/v1/service/healthcheck`, { connections: 16 }))
    workersRss = { supervisorMb: processRssMb(two.pid), workersMb: childrenOf(two.pid).map(processRssMb) }
    await two.stop()
  } else {
    await server.stop()
    await plainServer.stop()
  }
  // Issue 18 (12k only): heavy floods, abandoned requests and track floods, on an instance of their own.
  let hard: Hardening | undefined
  if (at12k) {
    // Every stream from one address: let one client hold all 64 (the default share is a quarter of --max-streams).
    const hardServer = await start([...extraArgs, '--max-streams-per-client', '64'])
    hard = await hardening(hardServer, duration)
    await hardServer.stop()
    console.error(hardeningTable(hard))
  }
  return { label, startup, startupAuto, startupCache, startupCacheAuto, rss, rssAfterIssue4, issue4Rows: results.slice(0, issue4RowCount), burstRss, results, hard, workersRss }
}

function ratioTable(s: Awaited<ReturnType<typeof suite>>): string {
  const by = (name: string) => s.results.find((r) => r.name === name)!
  const plain = by('plain loop nearby (random observer)')
  const health = by('healthcheck')
  const hello = by('hello world')
  const nearbyBasic = by('nearby basic (random observer)')
  const one = by('nearby basic, 1 connection')
  const plainOne = by('plain loop nearby, 1 connection')
  const oneOff = by('nearby basic, one-off time')
  const plainOneOff = by('plain loop nearby, one-off time')
  const nearEpoch = s.results.find((r) => r.name === 'nearby basic, one-off instant near the epoch')
  const plainNearEpoch = s.results.find((r) => r.name === 'plain loop nearby, one-off instant near the epoch')
  const twoNearEpoch = s.results.find((r) => r.name === '2 workers: nearby basic, one-off instant near the epoch')
  const rows = s.results.map(
    (r) =>
      `| ${r.name} | ${r.connections} | ${r.rps.toFixed(0)} | ${r.p50Ms.toFixed(2)} | ${r.p99Ms.toFixed(2)} | ${(r.rps / plain.rps).toFixed(1)}× | ${(r.rps / hello.rps).toFixed(3)} | ${r.rssPeakMb.toFixed(0)} | ${r.cpuMsPerRequest.toFixed(3)} | ${r.cores.toFixed(2)} | ${r.roundsRps?.map((rps) => rps.toFixed(0)).join(', ') ?? ''} |`,
  )
  // The service's own rows (not the bench-only hello world and plain loop): issue 4's, and every row.
  const ownRssPeak = (rows: Measure[]) => Math.max(...rows.filter((r) => r.name !== 'hello world' && !r.name.startsWith('plain loop') && !r.name.startsWith('2 workers')).map((r) => r.rssPeakMb))
  const issue4RssPeak = ownRssPeak(s.issue4Rows)
  const serviceRssPeak = ownRssPeak(s.results)
  const at30k = s.label.startsWith('30k')
  // Issue 4's goals are for the 12k snapshot, except the throughput ratio, which has its own 30k goal.
  const mark = (ok: boolean) => (ok ? 'met' : 'missed')
  const goal = (text: string, ok: boolean) => (at30k ? `(12k goal: ${text})` : `${text}: ${mark(ok)}`)
  // Ratios of rows measured in the same rounds: the median of the per-round ratios (see `rounds`).
  const nearbyVsHealth = pairedRatio(nearbyBasic, health)
  // Latencies at one connection, round by round: nearby's p50 over the plain loop's, and its p99 over its p50.
  const oneVsPlainP50 = pairedRatio(one, plainOne, 'p50Ms')
  const oneP99VsP50 = pairedRatio(one, one, 'p99Ms', 'p50Ms')
  const nearbyVsPlain = pairedRatio(nearbyBasic, plain)
  const geopositionVsHealth = pairedRatio(by('geoposition (ISS, now)'), health)
  const list304VsHealth = pairedRatio(by('list 304'), health)
  const nearEpochRatio = nearEpoch && plainNearEpoch ? pairedRatio(nearEpoch, plainNearEpoch) : undefined
  const workersRatio = nearEpoch && twoNearEpoch ? pairedRatio(twoNearEpoch, nearEpoch) : undefined
  const goals22: [string, string, string][] =
    nearEpoch && plainNearEpoch && twoNearEpoch && nearEpochRatio && workersRatio && s.workersRss
      ? [
          ['nearby at one-off instants near the epoch vs the plain loop at such instants (1 worker)', showRatio(nearEpochRatio, 1), `≥ 20×: ${mark(nearEpochRatio.median >= 20)}`],
          ['the same, in CPU per request (whatever cores each got)', `${(plainNearEpoch.cpuMsPerRequest / nearEpoch.cpuMsPerRequest).toFixed(1)}× (${nearEpoch.cpuMsPerRequest.toFixed(2)} ms against ${plainNearEpoch.cpuMsPerRequest.toFixed(1)} ms)`, ''],
          [
            'for reference: CPU per request of nearby at "now" (position tables, no SGP4 for the satellites listed) against the most 20× near the epoch allows (the plain loop\'s there, over 20)',
            `${nearbyBasic.cpuMsPerRequest.toFixed(2)} ms against ${(plainNearEpoch.cpuMsPerRequest / 20).toFixed(2)} ms`,
            '',
          ],
          [
            '2 workers vs 1, nearby at one-off instants near the epoch',
            `${showRatio(workersRatio, 2)}; median rounds on ${twoNearEpoch.cores.toFixed(2)} cores against ${nearEpoch.cores.toFixed(2)}, CPU per request ${twoNearEpoch.cpuMsPerRequest.toFixed(2)} ms against ${nearEpoch.cpuMsPerRequest.toFixed(2)}`,
            `≥ 1.6×: ${mark(workersRatio.median >= 1.6)}`,
          ],
          ['nearby throughput at "now" vs the healthcheck', showRatio(nearbyVsHealth, 1, true), `≥ 1/30: ${mark(nearbyVsHealth.median >= 1 / 30)}`],
          ['startup to healthy, 1 worker (median of 7)', `${s.startup.toFixed(0)} ms`, `≤ 150 ms: ${mark(s.startup <= 150)}`],
          ['startup to healthy, --workers auto (median of 7)', `${s.startupAuto.toFixed(0)} ms`, `≤ 300 ms: ${mark(s.startupAuto <= 300)}`],
          ['the same from the data-dir cache a refresh wrote (OMM JSON, every group), 1 worker', `${s.startupCache.toFixed(0)} ms`, `≤ 150 ms: ${mark(s.startupCache <= 150)}`],
          ['the same from the data-dir cache, --workers auto', `${s.startupCacheAuto.toFixed(0)} ms`, `≤ 300 ms: ${mark(s.startupCacheAuto <= 300)}`],
          [
            'RSS of an instance of 2 workers after its rows',
            `supervisor ${s.workersRss.supervisorMb.toFixed(0)} MB, workers ${s.workersRss.workersMb.map((m) => m.toFixed(0)).join(' and ')} MB`,
            'documented (README: what each worker costs)',
          ],
        ]
      : []
  const goals: [string, string, string][] = [
    ['nearby throughput vs the plain loop', showRatio(nearbyVsPlain, 1), at30k ? `≥ 10×: ${mark(nearbyVsPlain.median >= 10)}` : `≥ 20×: ${mark(nearbyVsPlain.median >= 20)}`],
    ['nearby at one-off instants vs the plain loop at such instants', `${(oneOff.rps / plainOneOff.rps).toFixed(1)}×`, 'none in the table (point 1: no per-request propagation of the whole catalogue)'],
    ['nearby p50 vs the plain loop p50 (1 connection)', showRatio(oneVsPlainP50, 1, true), goal('≤ 1/15', oneVsPlainP50.median <= 1 / 15)],
    ['nearby throughput vs the healthcheck', showRatio(nearbyVsHealth, 1, true), goal('≥ 1/40', nearbyVsHealth.median >= 1 / 40)],
    ['nearby p99 vs its own p50, 1 connection', showRatio(oneP99VsP50, 2), goal('≤ 4×', oneP99VsP50.median <= 4)],
    ['geoposition throughput vs the healthcheck', showRatio(geopositionVsHealth, 2), goal('≥ 0.7×', geopositionVsHealth.median >= 0.7)],
    ['list-304 throughput vs the healthcheck', showRatio(list304VsHealth, 2), goal('≥ 0.7×', list304VsHealth.median >= 0.7)],
    ['startup to healthy (median of 7)', `${s.startup.toFixed(0)} ms`, goal('≤ 150 ms', s.startup <= 150)],
    ["RSS after issue 4's rows (the goal's workload: the rows above the passes)", `${s.rssAfterIssue4.toFixed(0)} MB`, goal('≤ 150 MB', s.rssAfterIssue4 <= 150)],
    ["highest RSS while issue 4's rows ran", `${issue4RssPeak.toFixed(0)} MB`, goal('≤ 150 MB', issue4RssPeak <= 150)],
    ['RSS after the passes rows too (issue 20), on the same instance', `${s.rss.toFixed(0)} MB`, goal("≤ 150 MB (issue 4's bound, held to the later rows too)", s.rss <= 150)],
    ['highest RSS over every row of the instance (passes, one-off instants near the epoch)', `${serviceRssPeak.toFixed(0)} MB`, goal("≤ 150 MB (issue 4's bound, held to the later rows too)", serviceRssPeak <= 150)],
    ['highest RSS, 9 cold large answers asked for at once', `${s.burstRss.toFixed(0)} MB`, goal('≤ 150 MB', s.burstRss <= 150)],
  ]
  // Issue 20's goals (12k): a night of visible passes of the catalogue under 1 s, all passes of the stations group under 0.2 s.
  const night = by('passes: a night of visible passes, whole catalogue')
  const stations = by('passes: a night, all passes of stations')
  const passGoals: [string, string, string][] = [
    ['a night of visible passes of the whole catalogue (p50, p99; 1 connection)', `${night.p50Ms.toFixed(0)} ms, ${night.p99Ms.toFixed(0)} ms`, goal('p99 < 1000 ms', night.p99Ms < 1000)],
    ['a night of all passes of the stations group (p50, p99; 1 connection)', `${stations.p50Ms.toFixed(0)} ms, ${stations.p99Ms.toFixed(0)} ms`, goal('p99 < 200 ms', stations.p99Ms < 200)],
  ]
  return [
    `### ${s.label}`,
    '',
    '| endpoint | connections | requests/s | p50 ms | p99 ms | vs plain loop | vs hello world | RSS peak MB | CPU ms/request | cores used | requests/s per round |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    '| measure | result | goal (issue 4) |',
    '|---|---|---|',
    ...goals.map(([k, v, g]) => `| ${k} | ${v} | ${g} |`),
    ...(goals22.length > 0 ? ['', '| measure (issue 22) | result | goal |', '|---|---|---|', ...goals22.map(([k, v, g]) => `| ${k} | ${v} | ${g} |`)] : []),
    '',
    '| measure (issue 20) | result | goal |',
    '|---|---|---|',
    ...passGoals.map(([k, v, g]) => `| ${k} | ${v} | ${g} |`),
    ...(s.hard ? ['', hardeningTable(s.hard)] : []),
  ].join('\n')
}

function machine(): string {
  const cpu = cpus()
  const bun = Bun.spawnSync([executable, '--version']).stdout.toString().trim()
  return `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${process.platform}-${process.arch}; ${bun}; wrk -t1, ${duration} s per row after 1 s of warm-up (${ROUND_S} s per round for the rows measured in rounds)`
}

const suites = [await suite('12k satellites (embedded snapshot)', []), await suite('30k satellites (synthetic)', ['--snapshot', synthetic30k])]
// Each speed-up of the domain next to its reference, in process (bench/speedups.ts).
const speedupRows = await speedups()
// How far a better filter could take one-off instants (issue 22, point 3), in process (bench/one-off-bound.ts).
const bound = await oneOffBound()
const report = [
  '# Benchmarks',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} by \`make bench\` on ${machine()}.`,
  'Each nearby request asks for a different random observer (bench/random-observer.lua); the one-off rows also for a random `time` to the millisecond, so each asks for an instant without position tables: within 30 days of now (six months from the elements), or within 20 days of the elements\' epoch ("near the epoch", at 16 connections and after 6 s of warm-up: each worker makes a day\'s window as first asked for, issue 22).',
  'The "2 workers" rows run against an instance started with --workers 2 before the rows near the epoch (idle until its own); its RSS is the supervisor\'s and both workers\' together. ' +
  `Rows a goal divides (the healthcheck, geoposition, list 304, the plain loop and nearby basic; the two rows at 1 connection, whose p50 and p99 the latency goals compare; the three rows near the epoch) are measured in ${ROUNDS} rounds of ${ROUND_S} s each after 1 s of warm-up, interleaved (A B C, A B C, ...), each next to the rows it is divided by: this VM\'s speed drifts by up to ±30 % between rows a minute apart, so a ratio is taken in each round, from rows measured next to each other, and the goal decided on the median round (the range of the rounds shown beside it); such a row\'s figures are its median round\'s, its RSS peak the highest of its rounds, and its requests/s per round listed. CPU ms/request is the CPU time the instance (all its processes) spent per answer while wrk ran, and "cores used" that time over the run\'s duration: throughput on a machine whose cores are busy with other work follows the cores the service got.`,
  'Each passes request (GET /api/v1/passes) asks for a different random observer between 60°S and 60°N and the 12 hours from 18:00 local mean solar time on 2026-05-30, near the data (bench/random-night.lua): a night wherever the observer is.',
  'Every instance runs with --max-element-age off, so that answers at "now" propagate the months-old embedded elements as before (decay and plausible heights still apply). ' +
  'The plain loop is the same /nearby answer computed by propagating every satellite with satellite.js on every request (mounted with --bench-routes).',
  'The plain loop runs in a second instance of the same executable, started for the same run, so its garbage (SGP4 for the whole catalogue on every request) does not count in the RSS of the instance serving every other row.',
  "RSS peak: the highest resident memory of the instance serving the row while it ran, sampled every 100 ms.",
  'Cold burst: a third instance, a second after it is healthy, asked at once for the list, a search and a feed of Starlink, each in identity, gzip and brotli (nine answers built on the spot; at most two compressions wait or run, the others go out unencoded); its highest RSS, sampled every 10 ms, up to a second after the last answer.',
  '',
  ...suites.map(ratioTable),
  '',
  '### What each speed-up earns',
  '',
  'Each speed-up timed next to the plain reference it must equal (the tests hold them equal), in process on the embedded catalogue (bench/speedups.ts); the last column: what that saves in one /nearby request (Paris, whole sky from 10°, at night), where the work runs in one.',
  '',
  speedupsTable(speedupRows),
  '',
  '### One-off instants near the epoch: the most a filter could give',
  '',
  "Issue 22's point 3 asks /nearby at one-off instants near the epoch for ≥ 20× the plain loop. An oracle search that already knows which satellites the answer holds, and propagates only those with the engine's own pieces (a perfect filter that costs nothing), measured in process next to the plain loop and the engine, in interleaved rounds over the same random observers and instants within 20 days of the elements' epoch, their answers checked equal byte for byte (bench/one-off-bound.ts; CPU per call, the medians of " +
    `${BOUND_ROUNDS} rounds, each after a full collection; "the rest" is a whole request through app.handle less the engine's search and answer). ` +
    (oneOffBoundRatio(bound, bound.oracleMs) < 20
      ? `Even so it reaches ${oneOffBoundRatio(bound, bound.oracleMs).toFixed(1)}×: the answer itself (${bound.listed.toFixed(0)} satellites on average, each with SGP4, look angles, magnitude and its JSON) costs more than a twentieth of the plain loop, so no filter can reach 20×.`
      : `It reaches ${oneOffBoundRatio(bound, bound.oracleMs).toFixed(1)}×: a better filter could reach 20×.`),
  '',
  oneOffBoundTable(bound),
  '',
].join('\n')
console.log(`\n${report}`)
writeFileSync(outFile, report)
console.error(`written to ${outFile}`)
