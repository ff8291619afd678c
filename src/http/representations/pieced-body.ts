/** A body made of pieces of other bodies (views of their bytes), sent as a stream without joining them whole. */
import type { StreamedBody } from './representation.ts'

/**
 * The largest chunk a pieced body's stream sends. A server sending a chunk
 * keeps what the socket did not take: under 32 connections of broad searches,
 * 16 KB chunks peaked ~10 MB lower than 64 KB ones and ~50 MB lower than 1 MB
 * ones, at the same throughput.
 */
const PIECE_CHUNK_BYTES = 16 * 1024

/** A pieced body up to this size is joined into a Blob instead. */
const JOIN_BELOW_BYTES = 64 * 1024

/**
 * A body made of `pieces` (views of larger byte arrays, say) that is never
 * joined whole. Its stream sends a large piece as views of it, no copy, and
 * joins runs of small ones into chunks of up to 16 KB, as the reader asks for
 * them. An answer cut from a larger one (a broad search from the list) then
 * costs no copy of its megabytes, in the cache or per answer in flight.
 * Up to JOIN_BELOW_BYTES the pieces are joined into a Blob at once: a small
 * answer goes out whole, with a Content-Length.
 */
export function piecedBody(pieces: readonly Uint8Array<ArrayBuffer>[]): Blob | StreamedBody {
  const size = pieces.reduce((sum, piece) => sum + piece.byteLength, 0)
  if (size <= JOIN_BELOW_BYTES) return new Blob([...pieces])
  return {
    size,
    stream() {
      let next = 0 // the piece the next chunk starts in
      let offset = 0 // and where in it
      const take = (length: number) => {
        const view = pieces[next]!.subarray(offset, offset + length)
        offset += length
        if (offset === pieces[next]!.byteLength) {
          next++
          offset = 0
        }
        return view
      }
      return new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            while (next < pieces.length && pieces[next]!.byteLength === offset) take(0) // empty pieces
            if (next === pieces.length) return controller.close()
            const rest = pieces[next]!.byteLength - offset
            if (rest >= PIECE_CHUNK_BYTES) return controller.enqueue(take(PIECE_CHUNK_BYTES))
            // Small pieces, joined while they fit (the first always does).
            let length = 0
            let fit = next
            for (let from = offset; fit < pieces.length && length + pieces[fit]!.byteLength - from <= PIECE_CHUNK_BYTES; from = 0) {
              length += pieces[fit]!.byteLength - from
              fit++
            }
            const chunk = new Uint8Array(length)
            for (let at = 0; at < length; ) {
              const view = take(pieces[next]!.byteLength - offset)
              chunk.set(view, at)
              at += view.byteLength
            }
            controller.enqueue(chunk)
          },
        },
        // Pull only when the reader wants more: one chunk at a time per answer in flight.
        { highWaterMark: 0 },
      )
    },
  }
}
