/**
 * Server-Sent Events (the WHATWG `text/event-stream` format): one event on a
 * fixed cadence, heartbeat comments between, and every timer stopped as soon
 * as the client goes away (the body is cancelled or the request aborted).
 */
import { every } from '../../../io/clock.ts'

export interface SseEvent {
  /** The `event:` field: what a client's `addEventListener(name)` listens for. */
  event: string
  /** Sent as one line of JSON in the `data:` field. */
  data: unknown
}

export interface SseStreamOptions {
  /** The event of each tick (the first is sent at once). */
  next: () => SseEvent
  /** Time between events, ms. */
  intervalMs: number
  /** Time between heartbeat comments, ms (they keep proxies and idle timeouts from closing a quiet connection). */
  heartbeatMs: number
  /** Called once when the stream ends, whatever ends it. */
  onClose: () => void
  /** Ends the stream when aborted (the request's signal: the client left). */
  signal?: AbortSignal
  /** Told when producing an event fails; the stream then ends. */
  onError?: (error: unknown) => void
}

/** How long a client waits before reconnecting after the connection drops, ms (the `retry:` field). */
export const RECONNECT_MS = 5000

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // Reverse proxies (nginx) would otherwise hold events back in their buffers.
  'x-accel-buffering': 'no',
} as const

/** One event in wire form. JSON never holds a raw newline, so `data:` is one line. */
export function formatEvent({ event, data }: SseEvent): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}

export function heartbeatComment(): string {
  return ': heartbeat\n\n'
}

export interface SseStream {
  body: ReadableStream<Uint8Array>
  /** Ends the stream from the server side (the client sees the body end). */
  end: () => void
  readonly closed: boolean
}

/** An event stream; it ends when the client leaves, when `end` is called, or when producing an event fails. */
export function sseStream(options: SseStreamOptions): SseStream {
  const encoder = new TextEncoder()
  let stopTicks: (() => void) | undefined
  let stopHeartbeats: (() => void) | undefined
  let closed = false
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined

  const close = () => {
    if (closed) return
    closed = true
    stopTicks?.()
    stopHeartbeats?.()
    options.signal?.removeEventListener('abort', close)
    options.onClose()
  }
  const send = (text: string) => {
    if (closed) return
    try {
      controller!.enqueue(encoder.encode(text))
    } catch {
      close() // the stream is gone: the client left between our checks
    }
  }
  const end = () => {
    if (closed) return
    close()
    try {
      controller?.close()
    } catch {
      // already closed by the client going away
    }
  }
  const sendNext = () => {
    let event: SseEvent
    try {
      event = options.next()
    } catch (error) {
      options.onError?.(error)
      return end()
    }
    send(formatEvent(event))
  }

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
      if (options.signal?.aborted) return end()
      options.signal?.addEventListener('abort', close)
      send(`retry: ${RECONNECT_MS}\n\n`)
      sendNext()
      if (closed) return // the first event failed: no timers
      stopTicks = every(options.intervalMs, sendNext)
      stopHeartbeats = every(options.heartbeatMs, () => send(heartbeatComment()))
    },
    cancel() {
      close()
    },
  })
  return {
    body,
    end,
    get closed() {
      return closed
    },
  }
}

/**
 * The open streams, each known by the function that ends it, with a cap on how
 * many may be open and a cap per client (so one client cannot hold every slot).
 */
export class OpenStreams {
  readonly #ends = new Map<() => void, string>()
  readonly #perClient = new Map<string, number>()

  /** `maxPerClient`: default a quarter of `max` (at least 1). */
  constructor(
    readonly max: number,
    readonly maxPerClient: number = Math.max(1, Math.floor(max / 4)),
  ) {}

  get active(): number {
    return this.#ends.size
  }

  get full(): boolean {
    return this.#ends.size >= this.max
  }

  /** Streams `client` holds open. */
  heldBy(client: string): number {
    return this.#perClient.get(client) ?? 0
  }

  /** Whether `client` holds its whole share. */
  fullFor(client: string): boolean {
    return this.heldBy(client) >= this.maxPerClient
  }

  add(end: () => void, client = ''): void {
    if (this.#ends.has(end)) return
    this.#ends.set(end, client)
    this.#perClient.set(client, this.heldBy(client) + 1)
  }

  remove(end: () => void): void {
    const client = this.#ends.get(end)
    if (client === undefined) return
    this.#ends.delete(end)
    const held = this.heldBy(client) - 1
    if (held > 0) this.#perClient.set(client, held)
    else this.#perClient.delete(client)
  }

  /** Ends every open stream: they have no end of their own, so a stopping service ends them before it drains. */
  closeAll(): void {
    for (const end of [...this.#ends.keys()]) end()
  }
}
