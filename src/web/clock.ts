/**
 * The service's clock, as the page estimates it: "now" on the page is the
 * service's now, not the browser's (the two can be months apart: a wrong
 * clock on either side, a page opened from a machine in another year). The
 * estimate is an offset from the browser's clock, learned from the service's
 * answers: every answer's `Date` header (to the second) and, finer, the
 * instant of an answer asked for "now" (the sky's `observer.datetime`, a
 * position's `datetime`), which the service takes from its clock when the
 * request arrives.
 */

let offsetMs: number | undefined
let firstEstimate: Promise<void> | undefined

/** The service's now, ms since 1970 (the browser's until the service has answered once). */
export const serviceNow = () => Date.now() + (offsetMs ?? 0)

/** Whether the page has heard the service's clock yet. */
export const serviceClockKnown = () => offsetMs !== undefined

/**
 * An answer's `Date` header (`dateHeader`, to the second), for a request sent at
 * `sentMs` and answered at `receivedMs` (browser clock). The estimate moves only
 * when it is out of what the header allows: a finer one stays.
 */
export function noteDateHeader(dateHeader: string | null, sentMs: number, receivedMs: number): void {
  const date = Date.parse(dateHeader ?? '')
  if (!Number.isFinite(date)) return
  // The service read its clock between sending and receiving, within the second the header names.
  const low = date - receivedMs
  const high = date + 1000 - sentMs
  if (offsetMs === undefined || offsetMs < low || offsetMs > high) offsetMs = Math.round((low + high) / 2)
}

/** The service's instant `iso` for a request asked for "now", sent at `sentMs` (browser clock). */
export function noteServiceInstant(iso: string, sentMs: number): void {
  const ms = Date.parse(iso)
  // The service reads its clock as the request arrives, before working out the answer.
  if (Number.isFinite(ms)) offsetMs = ms - sentMs
}

/** Resolves once the service's clock is known: asks the service once if nothing has answered yet (never fails). */
export function serviceClockReady(): Promise<void> {
  if (offsetMs !== undefined) return Promise.resolve()
  firstEstimate ??= (async () => {
    const sent = Date.now()
    try {
      const response = await fetch('api/v1/service/healthcheck', { headers: { accept: 'application/json' }, cache: 'no-store' })
      noteDateHeader(response.headers.get('date'), sent, Date.now())
      await response.text()
    } catch {
      // No answer: the browser's clock stands in until one comes.
    }
  })().finally(() => {
    firstEstimate = undefined
  })
  return firstEstimate
}
