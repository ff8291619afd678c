/**
 * Work for later: the one place the service hands functions to the event loop
 * for the domain (the nearby engine's tables, the SGP4 records made ahead of
 * need). One queue, one piece of work per turn of the event loop, after the I/O
 * that came meanwhile, and a piece told when its time is up (PIECE_MS): a
 * request that arrives waits for at most the one piece running, however many are
 * queued (the pieces that ask: the warm-up and the tables; the start log's
 * data-age line is one piece of ~10 ms). (Started at once, the warm-up and three tables each ran a piece per
 * turn, and a piece was a count of satellites: with months-old elements, a
 * table's slice took over 100 ms, and the first request after start-up waited
 * for several.)
 */

/** How long a piece may run before it is told to stop (it stops at its next check, and queues the rest). */
export const PIECE_MS = 2

/** A piece of work: `timeUp()` says when it should queue the rest of its work and return. */
export type Piece = (timeUp: () => boolean) => void

const queue: Piece[] = []
let head = 0
/** A turn is asked for: the next piece runs then. */
let scheduled = false

/** Runs `fn` soon: after the current request, and after the pieces queued before it, one per turn of the event loop. */
export function soon(fn: Piece): void {
  queue.push(fn)
  if (!scheduled) {
    scheduled = true
    setImmediate(runNext)
  }
}

function runNext(): void {
  const fn = queue[head]!
  queue[head++] = undefined as unknown as Piece
  const endsAt = performance.now() + PIECE_MS
  try {
    fn(() => performance.now() >= endsAt)
  } finally {
    if (head < queue.length) {
      // Never emptied under steady load: drop the slots already run now and then.
      if (head >= 1024 && head * 2 >= queue.length) {
        queue.splice(0, head)
        head = 0
      }
      setImmediate(runNext)
    } else {
      queue.length = head = 0
      scheduled = false
    }
  }
}
