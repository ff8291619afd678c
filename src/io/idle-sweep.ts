/**
 * Lets go, every SWEEP_MS, of what the service's answers stopped using: the
 * cached answers (the list, one satellite, searches, feeds), the nearby engine's
 * position tables and day windows that nothing asked for since the previous
 * sweep, so between one and two periods after their last use. A steady load
 * keeps what it uses; what one load built (the list's 6 MB and its encodings,
 * a month of day windows) does not stay resident under the next. Making one
 * again costs tens of milliseconds (the list ~50 ms, a table ~10 ms, a window
 * ~30 ms). The sweeps themselves keep no clock: the modules hand them here.
 */

import { every } from './clock.ts'

/** Time between sweeps, ms. */
export const SWEEP_MS = 10_000

export class IdleSweeps {
  readonly #sweeps: (() => void)[] = []

  /** A module's sweep: drops what was not used since its previous call. */
  add(sweep: () => void): void {
    this.#sweeps.push(sweep)
  }

  /** Runs every sweep once. */
  sweep(): void {
    for (const sweep of this.#sweeps) sweep()
  }

  /** Sweeps every `periodMs`; returns a function that stops. The timer never keeps the process alive. */
  start(periodMs = SWEEP_MS): () => void {
    return every(periodMs, () => this.sweep(), { background: true })
  }
}
