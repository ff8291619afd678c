/**
 * `--workers N` (N > 1): one instance made of a supervisor process and N
 * worker processes that serve the same port (each binds it with SO_REUSEPORT;
 * the kernel spreads connections over them). Why processes and not threads:
 * docs/performance.md. This module is the supervisor's side and the messages
 * both sides exchange over the IPC channel Bun opens between a parent and a
 * child (src/io/worker-link.ts is the worker's side).
 *
 * The supervisor serves no request. It holds what must be one per instance:
 * - the catalogue: it takes the first worker's (as data: domain/catalog/transfer.ts),
 *   refreshes and reloads it (SIGHUP), and hands every new one to every
 *   worker, so all of them serve the same version (the same ETags); a worker
 *   started from the files reports its version, and one that differs is sent
 *   the supervisor's;
 * - the rate-limit budgets and the stream slots, which workers ask for over
 *   IPC (one round trip, tens of µs);
 * - the gathering of /metrics: a worker asked for /metrics gets every
 *   worker's own figures through the supervisor, labelled by worker.
 * SIGTERM or SIGINT to the supervisor stops every worker gracefully (each
 * finishes its requests in flight) and then the supervisor; SIGHUP reloads.
 * A worker that dies is logged and replaced (from the supervisor's catalogue).
 */
import type { Catalog } from '../domain/catalog/catalog.ts'
import type { RefreshStatus } from '../domain/catalog/refresh.ts'
import { type CatalogTransfer, catalogFromTransfer, catalogTransfer } from '../domain/catalog/transfer.ts'

/** Where a worker's first catalogue comes from: the files (as a single process would start), or the supervisor. */
export type WorkerSource = 'files' | 'supervisor'

/** The environment variables that make a process a worker, and tell it how to start. */
export const WORKER_ENV = {
  /** The worker's slot, 1..N (its id in logs and metrics). */
  slot: 'SATTRACK_WORKER',
  /** `files` or `supervisor`: where its first catalogue comes from. */
  source: 'SATTRACK_WORKER_SOURCE',
  /** The port to bind (the supervisor resolves `--port 0` once for all). */
  port: 'SATTRACK_WORKER_PORT',
} as const

/** A rate-limit decision (as src/http/plugins/rate-limit.ts makes it). */
export type Admission = { allowed: true; retryAfterSeconds?: undefined } | { allowed: false; retryAfterSeconds: number }

/** Whether a stream may open: yes, no (the instance's cap), no (the client's share). */
export type StreamGrant = 'ok' | 'full' | 'client'

export interface RefreshState {
  status: RefreshStatus
  counts: { succeeded: number; failed: number }
}

/** What the supervisor reports of itself on /metrics. */
export interface SupervisorFigures {
  pid: number
  rssBytes: number
  cpuSeconds: number
  startedAtMs: number
  /** Workers configured, and listening now. */
  configured: number
  listening: number
  /** Workers started in place of one that died, since the start. */
  replaced: number
}

/** One worker's own /metrics families (plain data: src/http/plugins/prometheus.ts's Family). */
export interface WorkerFigures {
  worker: number
  pid: number
  families: unknown[]
}

export interface Gathered {
  workers: WorkerFigures[]
  supervisor: SupervisorFigures
}

/** Worker → supervisor. */
export type ToSupervisor =
  | { t: 'listening' }
  | { t: 'version'; version: string }
  | { t: 'catalog'; transfer: CatalogTransfer; cacheGroupsUsed: string[] }
  | { t: 'want-catalog' }
  | { t: 'swapped'; version: string }
  | { t: 'rate'; id: number; client: string; nowMs: number }
  | { t: 'stream'; id: number; client: string }
  | { t: 'stream-closed'; client: string }
  | { t: 'metrics'; id: number }
  | { t: 'families'; id: number; families: unknown[] }
  | { t: 'reload' }
  | { t: 'pong' }

/** Supervisor → worker. */
export type ToWorker =
  | { t: 'catalog'; transfer: CatalogTransfer }
  | { t: 'send-catalog' }
  | { t: 'refresh'; state: RefreshState }
  | { t: 'families'; id: number }
  | { t: 'reply'; id: number; value: unknown }
  | { t: 'ping' }

/** A worker process as the supervisor sees it (Bun's Subprocess, or a test's stand-in). */
export interface WorkerProcess {
  pid: number
  send(message: ToWorker): void
  kill(signal?: NodeJS.Signals): void
  /** Resolves when the process has exited. */
  exited: Promise<{ code: number | null; signal: string | null }>
}

interface Logger {
  info(message: string, fields?: Record<string, unknown>): void
  warn(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

export interface SupervisorOptions {
  /** How many workers. */
  count: number
  /** Starts the worker of `slot` (1..count); its messages go to `onMessage`. */
  spawn: (slot: number, source: WorkerSource, onMessage: (message: ToSupervisor) => void) => WorkerProcess
  log: Logger
  /** The rate limit's budgets (--rate-limit), or null. */
  rate: { take(client: string, nowMs: number): Admission } | null
  /** Streams open at once in the instance, and per client. */
  streams: { max: number; perClient: number }
  /**
   * Whether the supervisor holds the catalogue (it may replace it: refresh,
   * --snapshot reload). Without it, the supervisor only knows the instance's
   * version (the first worker's): a replaced worker starts from the files, and
   * a worker serving another version is sent the catalogue of one that serves
   * the instance's. Default: yes.
   */
  keepCatalogue?: boolean
  /** Given the instance's catalogue once the first worker has sent it, with the cache groups its start used (the refresh starts from them). */
  onCatalog: (catalog: Catalog, cacheGroupsUsed: string[]) => void
  /** The refresh's state, mirrored to the workers (their /service/status and /metrics); absent: no refresh. */
  refreshState?: () => RefreshState
  /** How long a stop waits for workers to finish before killing them, ms (their own grace period plus a margin). */
  stopTimeoutMs: number
  now?: () => number
  /** Replaces a dead worker after this long, doubled for each death in a row soon after its start (ms). */
  restartDelayMs?: number
  /** How often a worker is asked whether it still answers, and after how many unanswered asks in a row it is killed and replaced (default HEARTBEAT). */
  heartbeat?: { everyMs: number; stuckAfter: number }
}

/** A worker dying within this time of its start counts as a failure in a row (the restart delay doubles). */
const QUICK_DEATH_MS = 10_000
const MAX_RESTART_DELAY_MS = 10_000
/** How long /metrics waits for a worker's figures; a worker that does not answer is left out. */
const GATHER_TIMEOUT_MS = 1000
/** How often the refresh state is sent to the workers when it has changed. */
const REFRESH_MIRROR_MS = 500
/**
 * A worker is asked every 2 s whether it answers; one that has answered none of
 * 10 asks in a row (its event loop stuck for 20 s: no request it takes would be
 * answered; or stuck before it listens) is killed and replaced (before the
 * instance is up, its death fails the start). Counted in asks, not in time
 * since its last answer, so that a supervisor paused for a while (a stopped
 * process, a loaded machine) does not take its own silence for the workers'.
 */
const HEARTBEAT = { everyMs: 2000, stuckAfter: 10 }
/**
 * While a catalogue sent to a worker (a refresh round, a reload; the whole
 * catalogue, on the same channel as the asks) is not yet reported swapped in,
 * only one ask in 5 counts: under heavy load a worker took up to 21 s to read
 * one, its event loop busy with requests, not stuck (then 100 s to be killed).
 */
const SWAP_SLACK = 5

interface Slot {
  slot: number
  process: WorkerProcess
  source: WorkerSource
  startedAtMs: number
  listening: boolean
  /** Deaths in a row soon after a start. */
  quickDeaths: number
  /** The catalogue version it serves, once known. */
  version?: string
  /** Asks in a row it has not answered (any message answers). */
  unanswered: number
  /** Exited, or killed by the heartbeat (its exit replaces it): no longer asked. */
  ended: boolean
  /** A catalogue sent to it that it has not reported swapped in yet (it may take many seconds to read under load: the asks wait behind it). */
  swapPending: boolean
  asksWhileSwapping: number
}

/** The instance-wide stream slots: at most `max` streams, `perClient` per client, each held by a worker. */
export class StreamSlots {
  #total = 0
  readonly #byClient = new Map<string, number>()
  readonly #byWorker = new Map<number, Map<string, number>>()

  constructor(
    readonly max: number,
    readonly perClient: number,
  ) {}

  get open(): number {
    return this.#total
  }

  acquire(worker: number, client: string): StreamGrant {
    if (this.#total >= this.max) return 'full'
    const held = this.#byClient.get(client) ?? 0
    if (held >= this.perClient) return 'client'
    this.#total++
    this.#byClient.set(client, held + 1)
    const mine = this.#byWorker.get(worker) ?? new Map<string, number>()
    mine.set(client, (mine.get(client) ?? 0) + 1)
    this.#byWorker.set(worker, mine)
    return 'ok'
  }

  release(worker: number, client: string): void {
    const mine = this.#byWorker.get(worker)
    const count = mine?.get(client) ?? 0
    if (count === 0) return
    if (count === 1) mine!.delete(client)
    else mine!.set(client, count - 1)
    this.#total--
    const held = this.#byClient.get(client)! - 1
    if (held === 0) this.#byClient.delete(client)
    else this.#byClient.set(client, held)
  }

  /** Every slot a worker held (it died). */
  releaseWorker(worker: number): void {
    for (const [client, count] of this.#byWorker.get(worker) ?? []) for (let k = 0; k < count; k++) this.release(worker, client)
    this.#byWorker.delete(worker)
  }
}

export class Supervisor {
  readonly #options: SupervisorOptions
  readonly #slots = new Map<number, Slot>()
  readonly #streams: StreamSlots
  readonly #now: () => number
  readonly #startedAtMs: number
  #catalog: Catalog | undefined
  readonly #keepCatalogue: boolean
  /** Without the catalogue: the version every worker must serve (the first one reported). */
  #instanceVersion: string | undefined
  /** Without the catalogue: workers waiting for the instance's, which a worker serving it is asked for. */
  readonly #waiting = new Set<number>()
  #askedForCatalog: number | undefined
  #stopping = false
  #replaced = 0
  #nextId = 1
  readonly #gathering = new Map<number, { replies: WorkerFigures[]; expected: Set<number>; done: () => void }>()
  #mirrored = ''
  #mirror: ReturnType<typeof setInterval> | undefined
  #heartbeat: ReturnType<typeof setInterval> | undefined
  #started: { resolve: () => void; reject: (error: Error) => void } | undefined

  constructor(options: SupervisorOptions) {
    this.#options = options
    this.#streams = new StreamSlots(options.streams.max, options.streams.perClient)
    this.#now = options.now ?? Date.now
    this.#startedAtMs = this.#now()
    this.#keepCatalogue = options.keepCatalogue ?? true
  }

  /** The instance's catalogue (after the first worker has sent it). */
  get catalog(): Catalog | undefined {
    return this.#catalog
  }

  get listening(): number {
    return [...this.#slots.values()].filter((s) => s.listening).length
  }

  /** Starts every worker; resolves when all listen and the supervisor holds the catalogue, rejects when one dies (or is killed as stuck) before it listens. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#started = { resolve, reject }
      for (let slot = 1; slot <= this.#options.count; slot++) this.#spawn(slot, 'files', 0)
      // From the first moment: a worker stuck before the instance is up is killed, and fails the start as one that exits does.
      const heartbeat = this.#options.heartbeat ?? HEARTBEAT
      this.#heartbeat = setInterval(() => this.#askWorkers(heartbeat), heartbeat.everyMs)
      this.#heartbeat.unref?.()
    })
  }

  /** A new catalogue (refresh, reload): kept, and sent to every worker. */
  swap(catalog: Catalog): void {
    this.#catalog = catalog
    this.#instanceVersion = catalog.version
    const transfer = catalogTransfer(catalog)
    for (const s of this.#slots.values()) {
      if (!s.listening) continue
      s.swapPending = true
      this.#send(s, { t: 'catalog', transfer })
    }
    this.#mirrorRefresh(true)
  }

  /** Stops every worker (SIGTERM: each finishes what it is answering), then resolves; past the timeout, kills them. */
  async stop(): Promise<void> {
    this.#stopping = true
    clearInterval(this.#mirror)
    clearInterval(this.#heartbeat)
    const all = [...this.#slots.values()]
    for (const s of all) s.process.kill('SIGTERM')
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.#options.stopTimeoutMs)
    })
    const outcome = await Promise.race([Promise.all(all.map((s) => s.process.exited)), timeout])
    clearTimeout(timer)
    if (outcome === 'timeout') {
      this.#options.log.warn('workers still running after the stop timeout were killed', { workers: all.map((s) => s.slot) })
      for (const s of all) s.process.kill('SIGKILL')
      await Promise.all(all.map((s) => s.process.exited))
    }
  }

  /** A second stop signal: passed on, so that each worker closes its connections at once. */
  forceStop(): void {
    for (const s of this.#slots.values()) s.process.kill('SIGTERM')
  }

  #spawn(slot: number, source: WorkerSource, quickDeaths: number): void {
    const process = this.#options.spawn(slot, source, (message) => this.#onMessage(slot, message))
    const entry: Slot = { slot, process, source, startedAtMs: this.#now(), listening: false, quickDeaths, unanswered: 0, ended: false, swapPending: false, asksWhileSwapping: 0 }
    this.#slots.set(slot, entry)
    void process.exited.then((exit) => this.#onExit(entry, exit))
  }

  #send(s: Slot, message: ToWorker): void {
    try {
      s.process.send(message)
    } catch {
      // The worker is gone (its exit is handled on its own).
    }
  }

  #onExit(s: Slot, exit: { code: number | null; signal: string | null }): void {
    s.ended = true
    s.listening = false
    if (this.#slots.get(s.slot) !== s) return
    this.#streams.releaseWorker(s.slot)
    for (const gathering of this.#gathering.values()) {
      gathering.expected.delete(s.slot)
      if (gathering.expected.size === 0) gathering.done()
    }
    if (this.#stopping) return
    const fields = { worker: s.slot, pid: s.process.pid, exitCode: exit.code, signal: exit.signal }
    if (this.#started) {
      // Before the instance is up: a worker that cannot start (a taken port...) fails the start.
      this.#options.log.error('a worker exited before the instance was up; stopping', fields)
      const started = this.#started
      this.#started = undefined
      started.reject(Object.assign(new Error(`worker ${s.slot} exited with code ${exit.code ?? exit.signal}`), { exitCode: exit.code ?? 1 }))
      return
    }
    const quick = this.#now() - s.startedAtMs < QUICK_DEATH_MS
    const quickDeaths = quick ? s.quickDeaths + 1 : 0
    const delayMs = quickDeaths === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, (this.#options.restartDelayMs ?? 250) * 2 ** (quickDeaths - 1))
    this.#options.log.error('a worker died; starting another in its place', { ...fields, restartInMs: delayMs })
    this.#replaced++
    this.#waiting.delete(s.slot)
    if (this.#askedForCatalog === s.slot) this.#askedForCatalog = undefined
    const restart = () => {
      if (this.#stopping) return
      this.#spawn(s.slot, this.#catalog && this.#keepCatalogue ? 'supervisor' : 'files', quickDeaths)
      this.#askForCatalog()
    }
    if (delayMs === 0) restart()
    else setTimeout(restart, delayMs)
  }

  /**
   * Asks a listening worker for its catalogue, when the supervisor keeps one
   * and has none yet, or (without) when a worker waits for the instance's
   * (then one that serves the instance's version).
   */
  #askForCatalog(): void {
    if (this.#askedForCatalog !== undefined) return
    if (this.#keepCatalogue ? this.#catalog !== undefined : this.#waiting.size === 0) return
    const s = [...this.#slots.values()].find((x) => x.listening && (this.#keepCatalogue || (x.version === this.#instanceVersion && !this.#waiting.has(x.slot))))
    if (!s) return
    this.#askedForCatalog = s.slot
    this.#send(s, { t: 'send-catalog' })
  }

  #onMessage(slot: number, message: ToSupervisor): void {
    const s = this.#slots.get(slot)
    if (!s) return
    s.unanswered = 0
    switch (message.t) {
      case 'listening':
        s.listening = true
        // A worker started in place of one that died learns the refresh's state now, not at its next change.
        if (!this.#started) this.#refreshTo(s)
        this.#askForCatalog()
        this.#checkStarted()
        return
      case 'pong':
        return
      case 'version':
        s.version = message.version
        if (!this.#keepCatalogue) this.#instanceVersion ??= message.version
        this.#checkVersion(s)
        this.#checkStarted()
        return
      case 'swapped':
        s.version = message.version
        s.swapPending = false
        return
      case 'catalog':
        if (!this.#keepCatalogue) {
          // The instance's, for the workers that wait for it.
          this.#askedForCatalog = undefined
          if (message.transfer.version !== this.#instanceVersion) return this.#askForCatalog()
          for (const waiting of this.#waiting) {
            const w = this.#slots.get(waiting)
            if (w) this.#send(w, { t: 'catalog', transfer: message.transfer })
          }
          this.#waiting.clear()
          return
        }
        if (this.#catalog) return
        try {
          const catalog = catalogFromTransfer(message.transfer)
          this.#catalog = catalog
          this.#instanceVersion = catalog.version
          s.version = catalog.version
          this.#options.onCatalog(catalog, message.cacheGroupsUsed)
        } catch (error) {
          this.#options.log.error('the catalogue a worker sent cannot be used', { worker: slot, reason: error instanceof Error ? error.message : String(error) })
          this.#askedForCatalog = undefined
          return
        }
        for (const other of this.#slots.values()) this.#checkVersion(other)
        this.#checkStarted()
        return
      case 'want-catalog':
        // Made when asked (a worker replaced): the supervisor keeps the catalogue, not a copy of it as data.
        if (this.#catalog) this.#send(s, { t: 'catalog', transfer: catalogTransfer(this.#catalog) })
        return
      case 'rate': {
        const admission = this.#options.rate?.take(message.client, message.nowMs) ?? { allowed: true }
        this.#send(s, { t: 'reply', id: message.id, value: admission })
        return
      }
      case 'stream':
        this.#send(s, { t: 'reply', id: message.id, value: this.#streams.acquire(slot, message.client) })
        return
      case 'stream-closed':
        this.#streams.release(slot, message.client)
        return
      case 'metrics':
        void this.#gather().then((value) => this.#send(s, { t: 'reply', id: message.id, value }))
        return
      case 'families': {
        const gathering = this.#gathering.get(message.id)
        if (!gathering || !gathering.expected.has(slot)) return
        gathering.expected.delete(slot)
        gathering.replies.push({ worker: slot, pid: s.process.pid, families: message.families })
        if (gathering.expected.size === 0) gathering.done()
        return
      }
      case 'reload':
        process.kill(process.pid, 'SIGHUP')
        return
    }
  }

  /** A worker that serves another version than the instance's is sent the instance's catalogue. */
  #checkVersion(s: Slot): void {
    const version = this.#instanceVersion
    if (version === undefined || !s.listening || s.version === undefined || s.version === version) return
    this.#options.log.warn('a worker started with another catalogue than the instance; sending it the instance\'s', {
      worker: s.slot,
      version: s.version,
      instanceVersion: version,
    })
    s.version = version
    if (this.#catalog && this.#keepCatalogue) this.#send(s, { t: 'catalog', transfer: catalogTransfer(this.#catalog) })
    else {
      this.#waiting.add(s.slot)
      this.#askForCatalog()
    }
  }

  /** The start is complete when every worker listens with its version known, and the supervisor holds the catalogue (if it keeps one). */
  #checkStarted(): void {
    if (!this.#started || (this.#keepCatalogue && !this.#catalog)) return
    const all = [...this.#slots.values()]
    if (all.length < this.#options.count || !all.every((s) => s.listening && s.version !== undefined)) return
    const started = this.#started
    this.#started = undefined
    if (this.#options.refreshState) {
      this.#mirror = setInterval(() => this.#mirrorRefresh(false), REFRESH_MIRROR_MS)
      this.#mirror.unref?.()
    }
    started.resolve()
  }

  /**
   * Asks every worker whether it answers, one that does not listen yet included
   * (its link answers from its first moments); kills one that has not answered
   * `stuckAfter` asks in a row (its exit replaces it, or fails the start).
   */
  #askWorkers({ everyMs, stuckAfter }: typeof HEARTBEAT): void {
    for (const s of this.#slots.values()) {
      if (s.ended) continue
      if (s.unanswered >= stuckAfter) {
        const what = this.#started ? 'a worker stopped answering before the instance was up; killing it' : 'a worker stopped answering; killing it to start another in its place'
        this.#options.log.error(what, {
          worker: s.slot,
          pid: s.process.pid,
          unansweredAsks: s.unanswered,
          everyMs,
          ...(s.listening ? {} : { listening: false }),
        })
        s.ended = true
        s.listening = false
        s.process.kill('SIGKILL')
        continue
      }
      // While a catalogue sent to it waits to be read, one ask in SWAP_SLACK counts.
      if (!s.swapPending || ++s.asksWhileSwapping % SWAP_SLACK === 0) s.unanswered++
      this.#send(s, { t: 'ping' })
    }
  }

  /** Sends one worker the refresh's state, if there is a refresh. */
  #refreshTo(s: Slot): void {
    const state = this.#options.refreshState?.()
    if (state) this.#send(s, { t: 'refresh', state })
  }

  /** Sends the refresh state to every worker when it has changed (or always). */
  #mirrorRefresh(always: boolean): void {
    const state = this.#options.refreshState?.()
    if (!state) return
    const text = JSON.stringify(state)
    if (!always && text === this.#mirrored) return
    this.#mirrored = text
    for (const s of this.#slots.values()) if (s.listening) this.#send(s, { t: 'refresh', state })
  }

  /** Every listening worker's own figures (those that answer within GATHER_TIMEOUT_MS), and the supervisor's. */
  #gather(): Promise<Gathered> {
    const id = this.#nextId++
    const listening = [...this.#slots.values()].filter((s) => s.listening)
    return new Promise((resolve) => {
      const replies: WorkerFigures[] = []
      let timer: ReturnType<typeof setTimeout> | undefined
      const done = () => {
        clearTimeout(timer)
        this.#gathering.delete(id)
        replies.sort((a, b) => a.worker - b.worker)
        resolve({ workers: replies, supervisor: this.#figures() })
      }
      this.#gathering.set(id, { replies, expected: new Set(listening.map((s) => s.slot)), done })
      timer = setTimeout(done, GATHER_TIMEOUT_MS)
      if (listening.length === 0) done()
      for (const s of listening) this.#send(s, { t: 'families', id })
    })
  }

  #figures(): SupervisorFigures {
    const cpu = process.cpuUsage()
    return {
      pid: process.pid,
      rssBytes: process.memoryUsage.rss(),
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      startedAtMs: this.#startedAtMs,
      configured: this.#options.count,
      listening: this.listening,
      replaced: this.#replaced,
    }
  }
}
