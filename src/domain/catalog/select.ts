/** Selecting satellites from a catalogue: by group, name, catalog number or launch; the list search and the feed share it. */
import type { Catalog, Satellite } from './catalog.ts'
import { objectIdOf } from './omm.ts'

/** What to keep; every criterion given must hold (an empty selection keeps everything). */
export interface Selection {
  /** An upstream group, compared without regard to case (`stations`). */
  group?: string
  /** A case-insensitive part of the name, or the exact catalog number written in decimal. */
  search?: string
  /** A case-insensitive part of the name (catalog numbers not considered). */
  nameContains?: string
  /** Only these catalog numbers. */
  ids?: readonly number[]
  /** A launch (`1998-067`) or one piece of it (`1998-067A`), compared without regard to case. */
  launch?: string
}

/** The satellites a selection keeps, ordered by noradId ascending. */
export function selectSatellites(catalog: Catalog, selection: Selection): Satellite[] {
  const candidates: readonly Satellite[] = selection.ids
    ? [...selection.ids]
        .sort((a, b) => a - b)
        .map((id) => catalog.get(id))
        .filter((s): s is Satellite => s !== undefined)
    : catalog.satellites
  const tests: ((s: Satellite) => boolean)[] = []
  if (selection.group !== undefined) {
    const group = selection.group.toLowerCase()
    tests.push((s) => s.groups.some((g) => g.toLowerCase() === group))
  }
  if (selection.search !== undefined) {
    const text = selection.search.toLowerCase()
    const id = /^\d{1,9}$/.test(selection.search) ? Number(selection.search) : null
    tests.push((s) => s.noradId === id || s.name.toLowerCase().includes(text))
  }
  if (selection.nameContains !== undefined) {
    const text = selection.nameContains.toLowerCase()
    tests.push((s) => s.name.toLowerCase().includes(text))
  }
  if (selection.launch !== undefined) {
    const launch = selection.launch.toUpperCase()
    const piece = /[A-Z]$/.test(launch)
    tests.push((s) => {
      const objectId = objectIdOf(s.elements.intlDesignator)
      return piece ? objectId === launch : objectId.startsWith(launch) && /^[A-Z]+$/.test(objectId.slice(launch.length))
    })
  }
  if (tests.length === 0) return [...candidates]
  return candidates.filter((s) => tests.every((test) => test(s)))
}
