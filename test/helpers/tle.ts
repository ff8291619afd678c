/** Synthetic element sets with valid checksums, for tests that need something the snapshot lacks. */
import { formatCatalogNumber, tleChecksum } from '../../src/domain/catalog/elements.ts'

export interface TleOptions {
  noradId?: number
  name?: string
  /** Epoch as ms since 1970 (UTC). */
  epochMs?: number
  inclinationDeg?: number
  raanDeg?: number
  eccentricity?: number
  argOfPericenterDeg?: number
  meanAnomalyDeg?: number
  meanMotionRevPerDay?: number
  bstar?: string
}

/** Replaces the last character of a 68- or 69-character line with its checksum. */
export function withChecksum(line: string): string {
  const body = line.slice(0, 68).padEnd(68, ' ')
  return body + String(tleChecksum(body))
}

function epochField(epochMs: number): string {
  const d = new Date(epochMs)
  const year = d.getUTCFullYear()
  const dayOfYear = (epochMs - Date.UTC(year, 0, 1)) / 86_400_000 + 1
  return `${String(year % 100).padStart(2, '0')}${dayOfYear.toFixed(8).padStart(12, '0')}`
}

/** A valid two-line element set (ISS-like orbit unless told otherwise). */
export function makeTle(options: TleOptions = {}): { name: string; line1: string; line2: string } {
  const o = {
    noradId: 90001,
    name: 'TEST SAT',
    epochMs: Date.UTC(2026, 4, 30, 12),
    inclinationDeg: 51.6,
    raanDeg: 27.5,
    eccentricity: 0.0007,
    argOfPericenterDeg: 114.7,
    meanAnomalyDeg: 245.5,
    meanMotionRevPerDay: 15.5,
    bstar: ' 21767-3',
    ...options,
  }
  const id = formatCatalogNumber(o.noradId)!
  const line1 = `1 ${id}U 98067A   ${epochField(o.epochMs)}  .00011776  00000+0 ${o.bstar} 0  999`
  const ecc = Math.round(o.eccentricity * 1e7).toString().padStart(7, '0')
  const line2 =
    `2 ${id} ${o.inclinationDeg.toFixed(4).padStart(8)} ${o.raanDeg.toFixed(4).padStart(8)} ${ecc} ` +
    `${o.argOfPericenterDeg.toFixed(4).padStart(8)} ${o.meanAnomalyDeg.toFixed(4).padStart(8)} ${o.meanMotionRevPerDay.toFixed(8).padStart(11)}12345`
  return { name: o.name, line1: withChecksum(line1), line2: withChecksum(line2) }
}

/** 3LE text (name line, line 1, line 2) of several element sets. */
export function threeLineText(sets: { name: string; line1: string; line2: string }[], eol = '\n'): string {
  return sets.map((s) => [s.name, s.line1, s.line2].join(eol)).join(eol) + eol
}
