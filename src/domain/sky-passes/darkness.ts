/**
 * Where in the searched time the observer's sky can be dark enough to see
 * satellites (the Sun at or below -6°, as `findPasses` decides it): a visible
 * pass needs a visible moment, and a visible moment needs a dark sky, so a
 * visible-only search looks for passes only there.
 *
 * The Sun's altitude is sampled every SAMPLE_MS; between samples it changes at
 * most at the Earth's rotation rate (0.2507°/min) plus the Sun's own motion in
 * declination (under 0.0003°/min), so a sample at altitude a rules out a dark
 * sky within half a step of it when a - MAX_RATE·SAMPLE_MS/2 is above -6°. The
 * stretches returned cover every dark moment (and some twilight around them).
 */
import type { TimeSpan } from '../orbit/passes.ts'
import { siderealTimeRad } from '../orbit/position.ts'
import { CIVIL_TWILIGHT_DEG, type Observer, sunAltitudeDeg, sunPositionAu } from '../orbit/sky.ts'

const SAMPLE_MS = 600_000
/** The fastest the Sun's altitude changes anywhere, degrees per ms (rounded up). */
const MAX_RATE_DEG_PER_MS = 0.2511 / 60_000

/** Stretches of [startMs, endMs] that hold every instant at which the Sun is at or below -6° at the observer, in order. */
export function possiblyDark(observer: Observer, startMs: number, endMs: number): TimeSpan[] {
  const spans: TimeSpan[] = []
  const reach = MAX_RATE_DEG_PER_MS * (SAMPLE_MS / 2) + 0.01
  for (let t = startMs; ; t = Math.min(t + SAMPLE_MS, endMs)) {
    const instant = new Date(t)
    if (sunAltitudeDeg(observer, sunPositionAu(instant), siderealTimeRad(instant)) - reach <= CIVIL_TWILIGHT_DEG) {
      const fromMs = Math.max(startMs, t - SAMPLE_MS / 2)
      const toMs = Math.min(endMs, t + SAMPLE_MS / 2)
      const last = spans.at(-1)
      if (last && last.toMs >= fromMs) last.toMs = toMs
      else spans.push({ fromMs, toMs })
    }
    if (t >= endMs) break
  }
  return spans
}

/** Whether [fromMs, toMs] meets one of the (ordered) spans. */
export function meetsAny(spans: readonly TimeSpan[], fromMs: number, toMs: number): boolean {
  for (const span of spans) {
    if (span.fromMs > toMs) return false
    if (span.toMs >= fromMs) return true
  }
  return false
}
