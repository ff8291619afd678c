/**
 * Keeps RSS near what the service really holds while it is busy. JavaScriptCore
 * lets its heap grow to a multiple of the live data before a full collection,
 * and under a steady stream of requests (each leaving its answer behind as
 * garbage) that headroom becomes resident memory: tens of MB on top of the
 * catalogue. Four times a second, only in periods that served requests, the
 * trim asks for a collection without waiting for it (`Bun.gc(false)`): no
 * request pauses. (Once a second let a burst after a quiet spell grow RSS by
 * ~40 MB before the first look.)
 * When RSS has still grown by more than `headroomBytes` over the floor, it
 * collects synchronously (`Bun.gc(true)`, a pause of ~10 ms): rare, so the p99
 * latency does not show it. An idle service is left alone.
 * The floor is the least RSS that one of the last FLOOR_WINDOW synchronous
 * collections left, not what the last one left: under a stream of large
 * answers a collection finds megabytes in flight, and taking each result as
 * the floor let RSS climb by a headroom at a time (~25 MB over 40 s of broad
 * searches). When the live data really grows (a larger catalogue), the floor
 * follows within FLOOR_WINDOW collections.
 */

import { every } from './clock.ts'

/** Requests counted as they arrive (createApp's `activity`). */
export interface Activity {
  requests: number
}

/** Above the floor, RSS may grow by this much before the next full collection. */
export const HEADROOM_BYTES = 10 * 2 ** 20 // 16 MB before: peaks a few MB higher in make bench (docs/operations.md)

/** The floor is the least RSS left by one of this many last full collections. */
export const FLOOR_WINDOW = 8

export interface MemoryTrimOptions {
  /** Resident memory now, bytes. */
  rss?: () => number
  /** Asks for a collection; `wait`: a full synchronous one. */
  collect?: (wait: boolean) => void
  headroomBytes?: number
}

/** Decides, at each look, whether the last period served requests, and how to collect. */
export class MemoryTrim {
  private seen: number
  private readonly rss: () => number
  private readonly collect: (wait: boolean) => void
  private readonly headroomBytes: number
  /** RSS right after each of the last FLOOR_WINDOW synchronous collections (at first: RSS at the start). */
  private readonly leftBehind: number[]

  constructor(
    private readonly activity: Activity,
    { rss = () => process.memoryUsage.rss(), collect = (wait) => Bun.gc(wait), headroomBytes = HEADROOM_BYTES }: MemoryTrimOptions = {},
  ) {
    this.seen = activity.requests
    this.rss = rss
    this.collect = collect
    this.headroomBytes = headroomBytes
    this.leftBehind = [rss()]
  }

  /** One look: nothing after an idle period; else a collection, synchronous when RSS has outgrown its headroom. Tells which. */
  tick(): 'idle' | 'async' | 'sync' {
    if (this.activity.requests === this.seen) return 'idle'
    this.seen = this.activity.requests
    if (this.rss() <= Math.min(...this.leftBehind) + this.headroomBytes) {
      this.collect(false)
      return 'async'
    }
    this.collect(true)
    this.leftBehind.push(this.rss())
    if (this.leftBehind.length > FLOOR_WINDOW) this.leftBehind.shift()
    return 'sync'
  }

  /** Looks every `intervalMs`; returns a function that stops. The timer never keeps the process alive. */
  start(intervalMs = 250): () => void {
    return every(intervalMs, () => this.tick(), { background: true })
  }
}

/**
 * JavaScriptCore's heap growth, set for a server. Between full collections the
 * engine lets its heap grow to a multiple of what the last one kept: about 3×
 * with Bun's settings on a machine with 16 GB or more (`heapGrowthMaxIncrease`
 * 2, on top of 1), 2× below that (`smallHeapGrowthFactor`). Under a steady
 * stream of requests that growth is garbage made resident: ~30 MB on this
 * service. At 1.6× the heap is collected a little more often (eden collections
 * of well under a millisecond), with no measurable cost in throughput and peaks
 * ~25 MB lower. Not lower: at 1.5× the room for new objects falls to a third
 * of the heap, where the engine turns to full collections (about half of them
 * became full ones, and throughput fell by a sixth).
 * Memory outside that heap (request and response buffers, compressors) comes
 * from mimalloc, which hands freed pages back to the system 100 ms after they
 * fall free; at once (`MIMALLOC_PURGE_DELAY=0`) peaks under load were 2–6 MB
 * lower, at the same throughput.
 * Set one of them in the environment to keep your value for it (the defaults:
 * 2, 2.0 and 100).
 */
export const HEAP_OPTIONS: Readonly<Record<string, string>> = {
  BUN_JSC_heapGrowthMaxIncrease: '0.6',
  BUN_JSC_smallHeapGrowthFactor: '1.6',
  MIMALLOC_PURGE_DELAY: '0',
}

export interface ProcessFacts {
  env: Record<string, string | undefined>
  argv: readonly string[]
  execArgv: readonly string[]
  execPath: string
  /** The entry point: under `/$bunfs/` in a compiled executable. */
  main: string
}

/**
 * JavaScriptCore and mimalloc read their options from the environment once,
 * before any JavaScript runs. So the process sets HEAP_OPTIONS by executing
 * itself again (execve: the same process and PID, the same arguments) with
 * those not in its environment added: the command for that, or null when all
 * of them are there (added by that first run, or set by the operator).
 */
export function relaunchCommand(facts: ProcessFacts): { file: string; args: string[]; env: Record<string, string> } | null {
  if (Object.keys(HEAP_OPTIONS).every((name) => facts.env[name] !== undefined)) return null
  const env: Record<string, string> = { ...HEAP_OPTIONS }
  for (const [name, value] of Object.entries(facts.env)) if (value !== undefined) env[name] = value
  return { file: facts.execPath, args: selfArgs(facts), env }
}

/** The command line that runs this program again with the same arguments (argv[0] first): the relaunch, and each worker of --workers. */
export function selfArgs(facts: Omit<ProcessFacts, 'env'>): string[] {
  // argv is [runtime, entry, ...arguments]; a compiled executable is itself the runtime and the entry.
  const compiled = facts.main.startsWith('/$bunfs/')
  return compiled ? [facts.execPath, ...facts.argv.slice(2)] : [facts.execPath, ...facts.execArgv, ...facts.argv.slice(1)]
}

/** A full, synchronous garbage collection (a pause of ~10 ms on this service's heap). */
export function collectGarbage(): void {
  Bun.gc(true)
}
