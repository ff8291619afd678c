#!/usr/bin/env bun
/**
 * The release build (`make dist`): one standalone executable per target,
 * `dist/sattrack-<version>-<os>-<arch>[.exe]`, each with the embedded snapshot
 * and the build commit compiled in, and `dist/SHA256SUMS` over them.
 *
 *   bun scripts/dist.ts                      every target
 *   bun scripts/dist.ts --only linux-arm64   some (comma list); SHA256SUMS still lists every file present
 *   bun scripts/dist.ts --print-commit       the commit a build would carry (for the Makefile's `--define`)
 *
 * Bun fetches each target's runtime from the npm registry (@oven/bun-<os>-<arch>)
 * the first time and caches it. The commit is `git rev-parse --short=12 HEAD`
 * (with `-dirty` for a changed tree), or SATTRACK_BUILD_COMMIT when set.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import pkg from '../package.json'

const ROOT = resolve(import.meta.dir, '..')
const DIST = join(ROOT, 'dist')

interface Target {
  os: 'linux' | 'darwin' | 'windows'
  arch: 'x64' | 'arm64'
  /** Bun's compile target. */
  bun: Bun.Build.CompileTarget
  /** What `file` says of a correct build (checked by test/e2e/dist.test.ts). */
  fileType: RegExp
  suffix?: string
}

/** linux-arm64 is 64-bit Raspberry Pi OS (Pi 3, 4, 5, Zero 2 W). */
export const TARGETS: readonly Target[] = [
  { os: 'linux', arch: 'x64', bun: 'bun-linux-x64', fileType: /ELF 64-bit LSB .*x86-64/ },
  { os: 'linux', arch: 'arm64', bun: 'bun-linux-arm64', fileType: /ELF 64-bit LSB .*ARM aarch64/ },
  { os: 'darwin', arch: 'arm64', bun: 'bun-darwin-arm64', fileType: /Mach-O 64-bit .*arm64/ },
  { os: 'windows', arch: 'x64', bun: 'bun-windows-x64', fileType: /PE32\+ executable .*x86-64.*Windows/, suffix: '.exe' },
]

export const VERSION: string = pkg.version

export const artifactName = (t: Target) => `sattrack-${VERSION}-${t.os}-${t.arch}${t.suffix ?? ''}`

function git(args: string[]): { ok: boolean; out: string } {
  const result = Bun.spawnSync(['git', ...args], { cwd: ROOT, stdout: 'pipe', stderr: 'ignore' })
  return { ok: result.exitCode === 0, out: result.stdout.toString().trim() }
}

/** The commit to compile in: SATTRACK_BUILD_COMMIT, or git's short hash with `-dirty` for a changed tree. */
export function buildCommit(env = process.env): string {
  if (env.SATTRACK_BUILD_COMMIT) return env.SATTRACK_BUILD_COMMIT
  const head = git(['rev-parse', '--short=12', 'HEAD'])
  if (!head.ok || head.out === '') return 'unknown'
  const dirty = git(['status', '--porcelain', '--untracked-files=no'])
  return dirty.ok && dirty.out !== '' ? `${head.out}-dirty` : head.out
}

async function build(target: Target, commit: string): Promise<string> {
  const outfile = join(DIST, artifactName(target))
  const started = performance.now()
  const result = await Bun.build({
    entrypoints: [join(ROOT, 'src/main.ts')],
    // jitPolicy: as the Makefile's JIT_POLICY (start-up code stays in the interpreter; src/main.ts restores the normal policy).
    compile: { target: target.bun, outfile, autoloadDotenv: false, autoloadBunfig: false, jitPolicy: 8 },
    minify: true,
    // Bytecode needs ESM spelled out (it would switch to CommonJS and lose top-level await).
    bytecode: true,
    format: 'esm',
    define: { SATTRACK_BUILD_COMMIT: JSON.stringify(commit) },
  })
  if (!result.success) throw new AggregateError(result.logs, `the ${target.os}-${target.arch} build failed`)
  console.log(`${artifactName(target)}  (${Math.round(performance.now() - started)} ms)`)
  return outfile
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex')

/** SHA256SUMS in the format `sha256sum -c` reads, over every target's file present in dist/. */
function writeChecksums(): string {
  const lines = TARGETS.map(artifactName)
    .filter((name) => existsSync(join(DIST, name)))
    .map((name) => `${sha256(join(DIST, name))}  ${name}`)
  const path = join(DIST, 'SHA256SUMS')
  writeFileSync(path, `${lines.join('\n')}\n`)
  return path
}

function selectedTargets(argv: string[]): readonly Target[] {
  const i = argv.indexOf('--only')
  if (i < 0) return TARGETS
  const wanted = (argv[i + 1] ?? '').split(',').filter(Boolean)
  const unknown = wanted.filter((w) => !TARGETS.some((t) => `${t.os}-${t.arch}` === w))
  if (wanted.length === 0 || unknown.length > 0) {
    console.error(`--only takes a comma list of ${TARGETS.map((t) => `${t.os}-${t.arch}`).join(', ')}`)
    process.exit(2)
  }
  return TARGETS.filter((t) => wanted.includes(`${t.os}-${t.arch}`))
}

if (import.meta.main && process.argv.includes('--print-commit')) {
  console.log(buildCommit())
} else if (import.meta.main) {
  if (!existsSync(join(ROOT, 'data/snapshot.json'))) {
    console.error('data/snapshot.json is missing: run `make data/snapshot.json` (it bundles the snapshot committed in data/)')
    process.exit(1)
  }
  const commit = buildCommit()
  mkdirSync(DIST, { recursive: true })
  console.log(`sattrack ${VERSION}, commit ${commit}`)
  for (const target of selectedTargets(process.argv.slice(2))) await build(target, commit)
  console.log(writeChecksums())
}
