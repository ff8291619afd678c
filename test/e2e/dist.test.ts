/**
 * The release files of `make dist`: one executable per target, each of the
 * right architecture (`file`), SHA256SUMS that `sha256sum -c` accepts, the
 * commit compiled in, and the linux-arm64 build (64-bit Raspberry Pi OS)
 * answering its healthcheck under qemu-aarch64 with the same answers as x64.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { artifactName, TARGETS } from '../../scripts/dist.ts'
import { FILE, missingMessage, QEMU_AARCH64 } from '../helpers/tools.ts'
import { childEnv, freePort, LOOPBACK, ROOT } from './harness.ts'

setDefaultTimeout(30_000)

const DIST = join(ROOT, 'dist')
/** Where Debian's libc6-arm64-cross puts the aarch64 loader and libc that qemu-aarch64 needs. */
const AARCH64_SYSROOT = '/usr/aarch64-linux-gnu'
/** Emulated start-up is slower: a bound, not a speed test. */
const QEMU_STARTUP_LIMIT_MS = 60_000

function requireDist(name: string): string {
  const path = join(DIST, name)
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`make dist\` (\`make test\` runs it first)`)
  return path
}

function run(command: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = Bun.spawnSync(command, { cwd: options.cwd, env: options.env ?? childEnv(), stdout: 'pipe', stderr: 'pipe' })
  return { exitCode: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}

describe('make dist', () => {
  test('covers linux-x64, linux-arm64, darwin-arm64 and windows-x64', () => {
    expect(TARGETS.map((t) => `${t.os}-${t.arch}`)).toEqual(['linux-x64', 'linux-arm64', 'darwin-arm64', 'windows-x64'])
    expect(TARGETS.map(artifactName)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^sattrack-\d+\.\d+\.\d+[^-]*-windows-x64\.exe$/), expect.stringMatching(/-linux-arm64$/)]),
    )
  })

  test.each(TARGETS.map((t) => [artifactName(t), t.fileType] as const))('%s is an executable for its platform', (name, fileType) => {
    const noFile = missingMessage([FILE])
    if (noFile) throw new Error(noFile)
    const { stdout } = run(['file', '-b', requireDist(name)])
    expect(stdout).toMatch(fileType)
  })

  test('SHA256SUMS lists every file and sha256sum -c accepts it', () => {
    requireDist('SHA256SUMS')
    const { exitCode, stdout } = run(['sha256sum', '-c', 'SHA256SUMS'], { cwd: DIST })
    expect(exitCode).toBe(0)
    for (const t of TARGETS) expect(stdout).toContain(`${artifactName(t)}: OK`)
  })

  test('the linux-x64 build says its version, the commit it was built from, and its snapshot', () => {
    const { exitCode, stdout } = run([requireDist(artifactName(TARGETS[0]!)), '--version'])
    expect(exitCode).toBe(0)
    expect(stdout).toMatch(/^sattrack \d+\.\d+\.\d+/)
    // A release build always has a commit compiled in (git's, or SATTRACK_BUILD_COMMIT).
    expect(stdout).toMatch(/^commit: (?!unknown$)\S+$/m)
    expect(stdout).toMatch(/^embedded snapshot: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(\d+ days? old; positions are given within 30 days of an element set.s epoch unless --max-element-age says otherwise\)$/m)
  })
})

async function healthy(url: string): Promise<boolean> {
  try {
    const r = await fetch(`${url}/api/v1/service/healthcheck`, { signal: AbortSignal.timeout(2_000) })
    return r.status === 200
  } catch {
    return false
  }
}

const qemuMissing = missingMessage([QEMU_AARCH64]) ?? (existsSync(`${AARCH64_SYSROOT}/lib/ld-linux-aarch64.so.1`) ? null : 'the aarch64 loader is missing: apt-get install libc6-arm64-cross (make deps-test)')
const withQemu = qemuMissing === null ? test : process.env.CI ? (test as typeof test) : test.skip
if (qemuMissing && !process.env.CI) console.warn(`skipping: ${qemuMissing}`)

describe('linux-arm64 under qemu-aarch64', () => {
  withQemu(
    'starts, answers its healthcheck, computes what x64 computes, stops on SIGTERM with exit 0',
    async () => {
      if (qemuMissing) throw new Error(qemuMissing)
      const arm64 = requireDist(artifactName(TARGETS[1]!))
      const x64 = requireDist(artifactName(TARGETS[0]!))
      const start = async (command: string[], env: Record<string, string>) => {
        const port = await freePort()
        const url = `http://${LOOPBACK}:${port}`
        const proc = Bun.spawn([...command, '--host', LOOPBACK, '--port', String(port)], { env: childEnv({ ...env, SATTRACK_DATA_DIR: '/nonexistent/sattrack-test' }), stdout: 'pipe', stderr: 'pipe' })
        const started = performance.now()
        while (proc.exitCode === null && performance.now() - started < QEMU_STARTUP_LIMIT_MS) {
          if (await healthy(url)) return { proc, url, startupMs: performance.now() - started }
          await Bun.sleep(200)
        }
        proc.kill('SIGKILL')
        throw new Error(`${command.join(' ')} did not answer its healthcheck: ${await new Response(proc.stderr).text()}`)
      }
      const emulated = await start(['qemu-aarch64', arm64], { QEMU_LD_PREFIX: AARCH64_SYSROOT })
      const native = await start([x64], {})
      try {
        console.log(`linux-arm64 under qemu answered its healthcheck after ${Math.round(emulated.startupMs)} ms`)
        for (const path of [
          '/api/v1/satellites/25544/geoposition?time=2026-05-30T12:00:00Z',
          '/api/v1/satellites/nearby?latitude=-33.87&longitude=151.21&time=2026-05-30T12:00:00Z',
        ]) {
          const [a, b] = await Promise.all([emulated.url, native.url].map(async (u) => (await fetch(`${u}${path}`)).json()))
          expect(a).toEqual(b)
        }
      } finally {
        emulated.proc.kill('SIGTERM')
        native.proc.kill('SIGTERM')
      }
      expect(await emulated.proc.exited).toBe(0)
      expect(await native.proc.exited).toBe(0)
    },
    120_000,
  )
})
