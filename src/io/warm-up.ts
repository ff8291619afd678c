/**
 * Makes a catalogue's SGP4 records ahead of need, in pieces of background work
 * (schedule.ts), so no request waits behind all of them; then, once, a full
 * garbage collection, so RSS reflects what is kept (a start leaves tens of MB of
 * garbage: reading, SGP4 initialisation).
 */
import type { Catalog } from '../domain/catalog/catalog.ts'
import { collectGarbage } from './memory.ts'
import { soon } from './schedule.ts'

/** How long after the last record the collection runs, ms. */
const COLLECT_AFTER_MS = 1000

/** Warms `catalog` from satellite `from` on; stops as soon as `isCurrent(catalog)` is false (a newer catalogue replaced it). */
export function warmUp(catalog: Catalog, isCurrent: (catalog: Catalog) => boolean, from = 0): void {
  soon((timeUp) => {
    if (!isCurrent(catalog)) return
    let end = from
    // Asked after every record (a deep-space one costs far more than a near-earth one).
    while (end < catalog.size && !(end > from && timeUp())) catalog.satrecAt(end++)
    if (end < catalog.size) warmUp(catalog, isCurrent, end)
    else setTimeout(collectGarbage, COLLECT_AFTER_MS)
  })
}
