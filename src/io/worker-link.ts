/**
 * A worker's side of the IPC channel to its supervisor (src/io/cluster.ts):
 * the catalogue it is told to serve, the refresh state it mirrors, and the
 * instance-wide limits (rate budgets, stream slots) and /metrics figures it
 * asks the supervisor for.
 */
import type { CatalogTransfer } from '../domain/catalog/transfer.ts'
import { disabledRefreshStatus, type RefreshStatus } from '../domain/catalog/refresh.ts'
import { type Admission, type Gathered, type RefreshState, type StreamGrant, type ToSupervisor, type ToWorker, WORKER_ENV, type WorkerSource } from './cluster.ts'

/** The channel: Bun's `process.send` and `process.on('message' | 'disconnect')` in a worker; a test's stand-in. */
export interface Channel {
  send(message: ToSupervisor): void
  onMessage(handler: (message: ToWorker) => void): void
  onDisconnect(handler: () => void): void
}

/** How long a request to the supervisor may take before the worker decides alone (ms). */
const REQUEST_TIMEOUT_MS = 2000

/** This process's worker identity from its environment, or null when it is not a worker. */
export function workerIdentity(env: Record<string, string | undefined>): { slot: number; source: WorkerSource; port: number | null } | null {
  const slot = Number(env[WORKER_ENV.slot])
  if (!Number.isInteger(slot) || slot < 1) return null
  const port = env[WORKER_ENV.port] === undefined ? null : Number(env[WORKER_ENV.port])
  return { slot, source: env[WORKER_ENV.source] === 'supervisor' ? 'supervisor' : 'files', port: Number.isInteger(port) ? port : null }
}

/** The channel Bun opens in a child started with `ipc`. */
export function processChannel(): Channel {
  return {
    send: (message) => {
      process.send?.(message)
    },
    onMessage: (handler) => {
      process.on('message', (message) => handler(message as ToWorker))
    },
    onDisconnect: (handler) => {
      process.on('disconnect', handler)
    },
  }
}

export class WorkerLink {
  readonly #channel: Channel
  #nextId = 1
  readonly #pending = new Map<number, (value: unknown) => void>()
  #refresh: RefreshState | undefined
  #onCatalog: ((transfer: CatalogTransfer) => void) | undefined
  #firstCatalog: ((transfer: CatalogTransfer) => void) | undefined
  #sendCatalog: (() => { transfer: CatalogTransfer; cacheGroupsUsed: string[] }) | undefined
  #families: (() => unknown[]) | undefined

  readonly #timeoutMs: number

  constructor(
    readonly slot: number,
    channel: Channel = processChannel(),
    /** How long a request to the supervisor may take before the worker decides alone (ms). */
    timeoutMs = REQUEST_TIMEOUT_MS,
  ) {
    this.#channel = channel
    this.#timeoutMs = timeoutMs
    channel.onMessage((message) => this.#onMessage(message))
  }

  #onMessage(message: ToWorker): void {
    switch (message.t) {
      case 'reply': {
        const resolve = this.#pending.get(message.id)
        this.#pending.delete(message.id)
        resolve?.(message.value)
        return
      }
      case 'catalog':
        if (this.#firstCatalog) {
          const first = this.#firstCatalog
          this.#firstCatalog = undefined
          first(message.transfer)
        } else this.#onCatalog?.(message.transfer)
        return
      case 'send-catalog': {
        const answer = this.#sendCatalog?.()
        if (answer) this.#channel.send({ t: 'catalog', ...answer })
        return
      }
      case 'refresh':
        this.#refresh = message.state
        return
      case 'families':
        this.#channel.send({ t: 'families', id: message.id, families: this.#families?.() ?? [] })
        return
      case 'ping':
        this.#channel.send({ t: 'pong' })
        return
    }
  }

  /** Asks the supervisor; after the timeout, `fallback` (and an answer that comes later goes to `late`, if given). */
  #request<T, F = T>(message: (id: number) => ToSupervisor, fallback: F, late?: (value: T) => void): Promise<T | F> {
    const id = this.#nextId++
    return new Promise<T | F>((resolve) => {
      const timer = setTimeout(() => {
        if (late) this.#pending.set(id, (value) => late(value as T))
        else this.#pending.delete(id)
        resolve(fallback)
      }, this.#timeoutMs)
      this.#pending.set(id, (value) => {
        clearTimeout(timer)
        resolve(value as T)
      })
      this.#channel.send(message(id))
    })
  }

  /** The supervisor's catalogue, for a worker started in place of one that died. */
  firstCatalog(): Promise<CatalogTransfer> {
    return new Promise((resolve) => {
      this.#firstCatalog = resolve
      this.#channel.send({ t: 'want-catalog' })
    })
  }

  /** Every later catalogue (a refresh, a reload, or the instance's when this worker started with another). */
  onCatalog(handler: (transfer: CatalogTransfer) => void): void {
    this.#onCatalog = handler
  }

  /** What this worker answers when the supervisor asks for its catalogue (the first worker to listen is asked). */
  provideCatalog(make: () => { transfer: CatalogTransfer; cacheGroupsUsed: string[] }): void {
    this.#sendCatalog = make
  }

  /** What this worker answers when /metrics is gathered: its own families. */
  provideFamilies(make: () => unknown[]): void {
    this.#families = make
  }

  listening(): void {
    this.#channel.send({ t: 'listening' })
  }

  /** The version of the catalogue this worker serves (after it listens, and after each swap). */
  serving(version: string, swapped: boolean): void {
    this.#channel.send(swapped ? { t: 'swapped', version } : { t: 'version', version })
  }

  /** SIGHUP reached a worker: the supervisor reloads for all. */
  reload(): void {
    this.#channel.send({ t: 'reload' })
  }

  onDisconnect(handler: () => void): void {
    this.#channel.onDisconnect(handler)
  }

  refreshStatus(): RefreshStatus {
    return this.#refresh?.status ?? disabledRefreshStatus()
  }

  refreshCounts(): { succeeded: number; failed: number } {
    return this.#refresh?.counts ?? { succeeded: 0, failed: 0 }
  }

  /** One request from `client` against the instance's budget; if the supervisor does not answer in time, admitted. */
  takeRate(client: string, nowMs: number): Promise<Admission> {
    return this.#request((id) => ({ t: 'rate', id, client, nowMs }), { allowed: true })
  }

  /**
   * A stream slot for `client` in the instance; if the supervisor does not
   * answer in time, 'unanswered' (a 503 that says so), and a slot it grants
   * after all is given back at once.
   */
  acquireStream(client: string): Promise<StreamGrant | 'unanswered'> {
    return this.#request<StreamGrant, 'unanswered'>((id) => ({ t: 'stream', id, client }), 'unanswered', (grant) => {
      if (grant === 'ok') this.releaseStream(client)
    })
  }

  /**
   * What a worker does with signals of its own: SIGHUP asks the supervisor to
   * reload for every worker; a terminal's Ctrl-C (SIGINT, sent to the whole
   * process group) is left to the supervisor, which stops the workers.
   */
  handleSignals(): void {
    process.on('SIGHUP', () => this.reload())
    process.on('SIGINT', () => {})
  }

  /** Closes the channel to the supervisor after `delayMs` (it would keep the event loop, and a stop waiting for it, alive). */
  disconnectAfter(delayMs: number): void {
    setTimeout(() => process.disconnect?.(), delayMs)
  }

  releaseStream(client: string): void {
    this.#channel.send({ t: 'stream-closed', client })
  }

  /** Every worker's own /metrics families and the supervisor's figures; null if the supervisor does not answer in time. */
  gather(): Promise<Gathered | null> {
    return this.#request((id) => ({ t: 'metrics', id }), null)
  }
}
