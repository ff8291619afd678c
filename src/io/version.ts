/** The service version (package.json) and the commit it was built from (injected by the build). */
import { statSync } from 'node:fs'
import pkg from '../../package.json'

export const VERSION: string = pkg.version

/**
 * Set by the release build: `--define SATTRACK_BUILD_COMMIT='"<sha>"'` (Makefile,
 * scripts/dist.ts). Absent under `bun run` and `bun test`.
 */
declare const SATTRACK_BUILD_COMMIT: string | undefined

/** The git commit of the build (`-dirty` when the tree had changes), or `unknown` outside a release build. */
export const BUILD_COMMIT: string = typeof SATTRACK_BUILD_COMMIT === 'string' && SATTRACK_BUILD_COMMIT !== '' ? SATTRACK_BUILD_COMMIT : 'unknown'

let identity: string | null | undefined
/**
 * This very build: its version, commit, and the size and time of its
 * executable (two builds of one dirty tree differ there); null outside a
 * release build (`bun run`, `bun test`: the code may have changed under the
 * same name). What the data-dir cache's reads file is written by (cache.ts):
 * another build, whose reading of payloads may differ, reads them again.
 */
export function buildIdentity(): string | null {
  if (identity !== undefined) return identity
  try {
    const executable = statSync(process.execPath)
    identity = BUILD_COMMIT === 'unknown' ? null : `${VERSION} ${BUILD_COMMIT} ${executable.size} ${executable.mtimeMs}`
  } catch {
    identity = null
  }
  return identity
}

/** What `--version` prints: version, commit, the Bun it runs on, and the embedded snapshot's stamp and age at `nowMs`. */
export function versionText(snapshotStampMs: number, nowMs: number): string {
  const days = Math.floor((nowMs - snapshotStampMs) / 86_400_000)
  // A clock before the build's snapshot (a board without a real-time clock boots in 1970): the age says nothing.
  const ahead = Math.floor((snapshotStampMs - nowMs) / 86_400_000)
  const aheadText = ahead === 0 ? 'less than a day' : `${ahead} day${ahead === 1 ? '' : 's'}`
  const age = days < 0 ? `${aheadText} after this machine's clock: the clock is probably wrong` : `${days} day${days === 1 ? '' : 's'} old`
  return [
    `sattrack ${VERSION}`,
    `commit: ${BUILD_COMMIT}`,
    `runtime: Bun ${Bun.version} (${process.platform}-${process.arch})`,
    `embedded snapshot: ${new Date(snapshotStampMs).toISOString()} (${age}; positions are given within 30 days of an element set's epoch unless --max-element-age says otherwise)`,
    // The same 14 days as the status endpoint's `stale`.
    ...(days > 14 ? ['the embedded data is stale: load newer data with --refresh-url, --snapshot FILE or make snapshot (see GET /api/v1/service/status)'] : []),
  ].join('\n')
}
