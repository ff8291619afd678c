/**
 * A reduced `make bench` for the /nearby rows of issue 22: starts dist/sattrack
 * as bench/run.ts does, then wrk with bench/random-observer.lua for the
 * healthcheck, /nearby at "now" and /nearby at one-off instants near the
 * epoch (optionally the plain loop there), printing requests/s and the CPU
 * the instance spent per request (user and system apart).
 *
 *   bun bench/probe/nearby-rows.ts [--plain] [--duration 5] [--only now|epoch] [--exe path]
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dir, '..', '..')
const args = process.argv.slice(2)
const duration = Number(args.includes('--duration') ? args[args.indexOf('--duration') + 1] : '5')
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined
const lua = join(root, 'bench', 'random-observer.lua')
const EPOCH_S = 1_780_181_400

function cpu(pid: number): { user: number; sys: number } {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 }
}

const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
const port = probe.port!
probe.stop(true)
const executable = args.includes('--exe') ? args[args.indexOf('--exe') + 1]! : join(root, 'dist', 'sattrack')
const proc = Bun.spawn([executable, '--host', '127.0.0.1', '--port', String(port), '--bench-routes', '--max-element-age', 'off'], { stdout: 'ignore', stderr: 'inherit' })
const base = `http://127.0.0.1:${port}`
for (;;) {
  try {
    if ((await fetch(`${base}/api/v1/service/healthcheck`)).status === 200) break
  } catch {}
  await Bun.sleep(5)
}

async function row(name: string, url: string, connections: number, env: Record<string, string> | null, warmupS = 1) {
  const cmd = ['wrk', '-t1', `-c${connections}`, `-d${duration}s`, '--latency', ...(env ? ['-s', lua] : []), url]
  await Bun.spawn(cmd.map((p) => (p === `-d${duration}s` ? `-d${warmupS}s` : p)), { stdout: 'ignore', env: { ...process.env, ...env } }).exited
  const before = cpu(proc.pid)
  const out = await new Response(Bun.spawn(cmd, { stdout: 'pipe', env: { ...process.env, ...env } }).stdout).text()
  const after = cpu(proc.pid)
  const answered = Number(/(\d+) requests in/.exec(out)?.[1])
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1])
  const user = ((after.user - before.user) * 1000) / answered
  const sys = ((after.sys - before.sys) * 1000) / answered
  console.log(`${name.padEnd(44)} ${rps.toFixed(0).padStart(7)} req/s  CPU ${(user + sys).toFixed(3)} ms/req (user ${user.toFixed(3)}, sys ${sys.toFixed(3)})`)
}

const nearby = { NEARBY_PATH: '/api/v1/satellites/nearby', NEARBY_EXTRA: '' }
const nearEpoch = { NEARBY_SPREAD_DAYS: '20', NEARBY_CENTER: String(EPOCH_S) }
if (only === undefined) await row('healthcheck', `${base}/api/v1/service/healthcheck`, 8, null)
if (only !== 'epoch') await row('nearby basic (random observer)', base, 8, nearby)
if (only !== 'now') await row('nearby basic, one-off instant near the epoch', base, 16, { ...nearby, ...nearEpoch }, 6)
if (args.includes('--plain')) await row('plain loop, one-off instant near the epoch', base, 16, { NEARBY_PATH: '/bench/plain-nearby', NEARBY_EXTRA: '', ...nearEpoch }, 3)
proc.kill('SIGTERM')
await proc.exited
