/**
 * Processes or threads? Serves the service's app (bench/probe/serve.ts) from N
 * processes (Bun.spawn, each binding the port with SO_REUSEPORT) or N Worker
 * threads of one process (each its own Bun.serve on the port with reusePort),
 * and measures with wrk the throughput of a CPU-bound route (/nearby at a
 * random observer and instant) and of the healthcheck, and the memory.
 *
 *   bun bench/workers-probe.ts [--duration 5]
 */
import { join } from 'node:path'
import { readFileSync } from 'node:fs'

const args = process.argv.slice(2)
const duration = Number(args[args.indexOf('--duration') + 1] || 5) || 5
const serveScript = join(import.meta.dir, 'probe', 'serve.ts')
const lua = join(import.meta.dir, 'random-observer.lua')
/** The embedded snapshot's stamp (2026-05-30T22:50Z): the one-off instants lie within 20 days of it. */
const EPOCH_S = 1780181400

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024
}

interface Running {
  port: number
  pids: number[]
  stop: () => Promise<void>
}

async function processes(n: number): Promise<Running> {
  const port = await freePort()
  const procs = Array.from({ length: n }, () => Bun.spawn([process.execPath, serveScript, String(port)], { stdout: 'pipe', stderr: 'inherit' }))
  await Promise.all(procs.map(async (p) => {
    const reader = p.stdout.getReader()
    for (let text = ''; !text.includes('ready'); ) text += new TextDecoder().decode((await reader.read()).value)
  }))
  return { port, pids: procs.map((p) => p.pid), stop: async () => { for (const p of procs) p.kill(); await Promise.all(procs.map((p) => p.exited)) } }
}

async function threads(n: number): Promise<Running> {
  const port = await freePort()
  // The threads live in a child process of their own, so that its RSS is theirs alone.
  const host = Bun.spawn([process.execPath, join(import.meta.dir, 'workers-probe.ts'), '--threads-host', String(n), String(port)], { stdout: 'pipe', stderr: 'inherit' })
  const reader = host.stdout.getReader()
  for (let text = ''; !text.includes('ready'); ) text += new TextDecoder().decode((await reader.read()).value)
  return { port, pids: [host.pid], stop: async () => { host.kill(); await host.exited } }
}

async function wrk(url: string, env: Record<string, string> = {}, luaScript?: string): Promise<number> {
  const cmd = ['wrk', '-t1', '-c16', `-d${duration}s`, ...(luaScript ? ['-s', luaScript] : []), url]
  await Bun.spawn(cmd.map((p) => (p === `-d${duration}s` ? '-d1s' : p)), { stdout: 'ignore', env: { ...process.env, ...env } }).exited
  const out = await new Response(Bun.spawn(cmd, { stdout: 'pipe', env: { ...process.env, ...env } }).stdout).text()
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1])
}

if (args[0] === '--threads-host') {
  const [n, port] = [Number(args[1]), Number(args[2])]
  await Promise.all(Array.from({ length: n }, () => new Promise<void>((resolve) => {
    const worker = new Worker(serveScript)
    worker.addEventListener('message', () => resolve())
    worker.postMessage(port)
  })))
  console.log('ready')
  await new Promise(() => {})
} else {
  const rows: string[] = []
  for (const [model, start] of [['processes', processes], ['threads', threads]] as const) {
    for (const n of [1, 2]) {
      const running = await start(n)
      await Bun.sleep(1500)
      const idle = running.pids.reduce((sum, pid) => sum + rssMb(pid), 0)
      const base = `http://127.0.0.1:${running.port}`
      const health = await wrk(`${base}/api/v1/service/healthcheck`)
      const nearby = await wrk(base, { NEARBY_PATH: '/api/v1/satellites/nearby', NEARBY_EXTRA: '', NEARBY_SPREAD_DAYS: '20', NEARBY_CENTER: String(EPOCH_S) }, lua)
      const loaded = running.pids.reduce((sum, pid) => sum + rssMb(pid), 0)
      await running.stop()
      const row = `| ${model} | ${n} | ${nearby.toFixed(0)} | ${health.toFixed(0)} | ${idle.toFixed(0)} | ${loaded.toFixed(0)} |`
      console.error(row)
      rows.push(row)
    }
  }
  console.log(['| model | workers | nearby, random instant (req/s) | healthcheck (req/s) | RSS idle, MB (all) | RSS after load, MB (all) |', '|---|---|---|---|---|---|', ...rows].join('\n'))
}
