/**
 * Finding a satellite as people ask for it: by its catalog number (`25544`),
 * its international designator (`1998-067A`, or the TLE form `98067A`), a
 * part of its catalogue name (`zarya`), or a common name the catalogue does
 * not use (`hubble` is `HST`, `iss` is `ISS (ZARYA)`, `tiangong` is `CSS (TIANHE)`).
 * The page's search box asks it. Pure.
 */
import type { Catalog, Satellite } from './catalog.ts'
import { MAX_NORAD_ID, objectIdOf } from './omm.ts'

/** Names people use that the catalogue's names do not contain, with the satellite they mean. */
export const COMMON_NAMES: readonly { name: string; noradId: number }[] = [
  { name: 'International Space Station', noradId: 25544 },
  { name: 'ISS', noradId: 25544 },
  { name: 'Space Station', noradId: 25544 },
  { name: 'Hubble', noradId: 20580 },
  { name: 'Hubble Space Telescope', noradId: 20580 },
  { name: 'Tiangong', noradId: 48274 },
  { name: 'Chinese Space Station', noradId: 48274 },
  { name: 'Fermi Gamma-ray Space Telescope', noradId: 33053 },
  { name: 'Chandra X-ray Observatory', noradId: 25867 },
  { name: 'TESS', noradId: 43435 },
  { name: 'Envisat', noradId: 27386 },
]

export interface Found {
  satellite: Satellite
  /** How it matched: the number, the designator, a common name (which), or the catalogue name. */
  match: 'number' | 'designator' | 'common name' | 'name'
  /** The common name that matched, for `common name`. */
  commonName?: string
}

const normalise = (text: string) => text.toUpperCase().replace(/[\s_-]+/g, ' ').trim()

/**
 * Up to `limit` satellites for `text`, best first: the exact catalog number, an
 * exact designator (a launch, `1998-067`, gives its pieces), common names
 * starting with the text, then catalogue names starting with it, then names
 * containing it (each by catalog number).
 */
export function findSatellites(catalog: Catalog, text: string, limit = 20): Found[] {
  const query = normalise(text)
  if (query === '') return []
  const found: Found[] = []
  const seen = new Set<number>()
  const add = (satellite: Satellite | undefined, match: Found['match'], commonName?: string) => {
    if (!satellite || seen.has(satellite.noradId) || found.length >= limit) return
    seen.add(satellite.noradId)
    found.push(commonName === undefined ? { satellite, match } : { satellite, match, commonName })
  }
  // Leading zeros as the routes read them (`0000025544` is 25544).
  if (/^\d+$/.test(query) && Number(query) <= MAX_NORAD_ID) add(catalog.get(Number(query)), 'number')
  // Designators: 1998-067A, 1998-067 (the launch), or the TLE form 98067A.
  const designator = /^(\d{4}) ?(\d{3})([A-Z]{0,3})$/.exec(query.replace(/^(\d{4})-/, '$1 ')) ?? null
  const tleForm = /^(\d{2})(\d{3})([A-Z]{1,3})$/.exec(query)
  const objectId = designator ? `${designator[1]}-${designator[2]}${designator[3]}` : tleForm ? objectIdOf(query) : null
  if (objectId) {
    const piece = /[A-Z]$/.test(objectId)
    for (const s of catalog.satellites) {
      const id = objectIdOf(s.elements.intlDesignator)
      if (piece ? id === objectId : id.startsWith(objectId) && /^[A-Z]+$/.test(id.slice(objectId.length))) add(s, 'designator')
    }
  }
  for (const common of COMMON_NAMES) if (normalise(common.name).startsWith(query)) add(catalog.get(common.noradId), 'common name', common.name)
  const names = catalog.satellites.map((s) => normalise(s.name))
  names.forEach((name, i) => {
    if (name.startsWith(query)) add(catalog.satellites[i], 'name')
  })
  names.forEach((name, i) => {
    if (name.includes(query)) add(catalog.satellites[i], 'name')
  })
  return found
}
