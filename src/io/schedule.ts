/** Work for later: the one place the service hands functions to the event loop's timers for the domain. */

/** Runs `fn` soon, after the current request (a zero-delay timer): how the nearby engine fills its next table. */
export function soon(fn: () => void): void {
  setTimeout(fn, 0)
}
