/**
 * Whether this process is about to become the supervisor of --workers (read
 * from the command line and environment before config.ts runs): the relaunch
 * (relaunch.ts) skips it, since the supervisor serves nothing and its workers
 * get the heap options in their environment. No imports but the OS: it runs
 * before any other module.
 */
import { availableParallelism } from 'node:os'

export function willSupervise(argv: readonly string[], env: Record<string, string | undefined>): boolean {
  // A worker of an instance (src/io/cluster.ts, WORKER_ENV.slot) never supervises.
  if (env.SATTRACK_WORKER !== undefined) return false
  let value = env.SATTRACK_WORKERS
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--workers') value = argv[i + 1]
    else if (argv[i]!.startsWith('--workers=')) value = argv[i]!.slice('--workers='.length)
  }
  if (value === undefined) return false
  const text = value.trim().toLowerCase()
  return text === 'auto' ? availableParallelism() > 1 : /^\d+$/.test(text) && Number(text) > 1
}
