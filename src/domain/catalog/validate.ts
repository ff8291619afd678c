/**
 * What a parsed element set must also satisfy to be loaded, whatever source
 * brings it (the embedded snapshot at build time, `--snapshot`, the cache, a
 * refresh, a reload; the cache's reads file gets recordRefusal only, its sets
 * having passed all of it in the build that wrote them, src/io/cache.ts):
 * SGP4 must initialise it and propagate it at its epoch,
 * its epoch may not be later than a day after the time its group was obtained
 * (data cannot describe an epoch that had not come when it was fetched, beyond
 * clock differences), and its name must be printable text of sane length (so a
 * 3LE line never breaks into several). Pure: the obtained time is given.
 */
import { sgp4 } from 'satellite.js'
import { fullSatrec } from './catalog.ts'
import type { ElementSet } from './elements.ts'

/** How far past the time its group was obtained an epoch may lie (clocks of two machines differ). */
export const FUTURE_EPOCH_MARGIN_MS = 86_400_000
/** The longest name accepted (CelesTrak's longest is under 30; OMM allows more than a 3LE's 24). */
export const MAX_NAME_LENGTH = 80
/** C0 and C1 control characters and DEL: CR, LF, NUL, ESC, TAB… */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

/** An element set not taken: one that could not be read, or that validation refused. */
export interface Refusal {
  /** Whose it is; null when a set that could not be read does not say (lines that disagree, no catalog number). */
  noradId: number | null
  reason: string
  /** Where it started in its payload (1-based line; for OMM JSON the record number), for sets that could not be read. */
  line?: number
}

export interface Validated {
  accepted: ElementSet[]
  refused: Refusal[]
}

const iso = (ms: number) => new Date(ms).toISOString()

/** SGP4 SatRec error codes (Vallado): what each means, for messages. */
const SGP4_ERRORS: Record<number, string> = {
  1: 'mean elements out of range (eccentricity >= 1 or < 0, or semi-major axis < 0.95 Earth radii)',
  2: 'mean motion below zero',
  3: 'perturbed eccentricity out of range',
  4: 'semi-latus rectum below zero',
  6: 'the orbit has decayed (below the Earth surface)',
}

/** Why SGP4 cannot use this element set, or null when it initialises and propagates at its epoch. */
export function sgp4Refusal(elements: ElementSet): string | null {
  let rec
  try {
    rec = fullSatrec(elements)
  } catch (error) {
    return `SGP4 cannot initialise it: ${error instanceof Error ? error.message : String(error)}`
  }
  if (rec.error !== 0) return `SGP4 cannot initialise it (error ${rec.error}: ${SGP4_ERRORS[rec.error] ?? 'unknown'})`
  const at = sgp4(rec, 0)
  const p = at?.position
  if (!at || rec.error !== 0 || !p || ![p.x, p.y, p.z].every(Number.isFinite)) {
    return `SGP4 cannot propagate it at its epoch (error ${rec.error}: ${SGP4_ERRORS[rec.error] ?? 'no position'})`
  }
  return null
}

/** Why the name cannot be served as it is, or null. */
export function nameRefusal(name: string): string | null {
  if (CONTROL.test(name)) return 'its name holds control characters'
  if (name.length > MAX_NAME_LENGTH) return `its name is longer than ${MAX_NAME_LENGTH} characters`
  return null
}

/** Why the element set's epoch or name is refused when its group was obtained at `obtainedAtMs`, or null: every check but SGP4's, a microsecond's work. */
export function recordRefusal(elements: ElementSet, obtainedAtMs: number): string | null {
  if (elements.epochMs > obtainedAtMs + FUTURE_EPOCH_MARGIN_MS) {
    return `its epoch ${iso(elements.epochMs)} is more than a day after its group was obtained (${iso(obtainedAtMs)})`
  }
  return nameRefusal(elements.name)
}

/** Why the element set is refused when its group was obtained at `obtainedAtMs`, or null. */
export function refusalOf(elements: ElementSet, obtainedAtMs: number): string | null {
  return recordRefusal(elements, obtainedAtMs) ?? sgp4Refusal(elements)
}

/** Splits element sets into those that may be loaded and those refused, with the reason of each. */
export function validateElementSets(elements: readonly ElementSet[], obtainedAtMs: number): Validated {
  const accepted: ElementSet[] = []
  const refused: Refusal[] = []
  for (const e of elements) {
    const reason = refusalOf(e, obtainedAtMs)
    if (reason === null) accepted.push(e)
    else refused.push({ noradId: e.noradId, reason })
  }
  return { accepted, refused }
}
