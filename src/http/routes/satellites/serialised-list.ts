/**
 * The whole list serialised once per catalogue version, with where each
 * satellite's JSON lies in it. A search answer is cut from those bytes
 * (views of them) instead of being serialised again: a broad search (`a`:
 * 11,000 satellites, 5.6 MB) then costs a few milliseconds, and neither its
 * cache entry nor its answers in flight hold a copy of its megabytes.
 */
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import { piecedBody } from '../../representations/pieced-body.ts'
import type { StreamedBody } from '../../representations/representation.ts'
import { satelliteJson } from './model.ts'

const encoder = new TextEncoder()
const HEAD = '{"data":['
const HEAD_BYTES = encoder.encode(HEAD)
const COMMA = encoder.encode(',')
const tail = (metadata: object) => `],"metadata":${JSON.stringify(metadata)}}`

export class SerialisedList {
  /**
   * The list answer, UTF-8: `{"data":[…],"metadata":{"total":n}}`, byte for
   * byte what JSON.stringify writes. A Blob: sent with a Content-Length (HEAD
   * gives it too) and without a copy per answer.
   */
  readonly body: Blob
  /** Satellite i's JSON is bytes [starts[i], starts[i + 1] - 1): a comma (or the closing bracket, for the last) follows each. */
  private readonly starts: Uint32Array
  /**
   * The same bytes as an array, to cut searches from (views of it, no copy):
   * made by `prepareCuts`, on the first search. A second copy of the list,
   * which a service asked only for the list never holds.
   */
  private bytes: Uint8Array<ArrayBuffer> | undefined
  private bytesMade: Promise<void> | undefined

  constructor(catalog: Catalog) {
    const items = catalog.satellites.map((satellite) => JSON.stringify(satelliteJson(satellite)))
    this.starts = new Uint32Array(items.length + 1)
    let at = HEAD.length
    for (let i = 0; i < items.length; i++) {
      this.starts[i] = at
      at += Buffer.byteLength(items[i]!) + 1
    }
    this.starts[items.length] = at
    this.body = new Blob([HEAD + items.join(',') + tail({ total: items.length })])
  }

  /** Makes what `cut` needs: a promise the first time (the copy is read from the Blob), undefined once it is there. */
  prepareCuts(): Promise<void> | undefined {
    if (this.bytes) return undefined
    this.bytesMade ??= this.body.bytes().then((bytes) => {
      this.bytes = bytes
    })
    return this.bytesMade
  }

  /**
   * The answer `{"data":[…],"metadata":…}` for the satellites at `indices` (in
   * `satellites`, ascending): the same bytes as serialising them anew, as
   * pieces of the list (one slice per run of neighbours). Only once
   * `prepareCuts` has finished.
   */
  cut(indices: readonly number[], metadata: object): Blob | StreamedBody {
    const bytes = this.bytes
    if (!bytes) throw new Error('SerialisedList.cut before prepareCuts finished')
    const pieces: Uint8Array<ArrayBuffer>[] = [HEAD_BYTES]
    for (let first = 0; first < indices.length; ) {
      let last = first
      while (last + 1 < indices.length && indices[last + 1] === indices[last]! + 1) last++
      if (first > 0) pieces.push(COMMA)
      pieces.push(bytes.subarray(this.starts[indices[first]!], this.starts[indices[last]! + 1]! - 1))
      first = last + 1
    }
    pieces.push(encoder.encode(tail(metadata)))
    return piecedBody(pieces)
  }
}
