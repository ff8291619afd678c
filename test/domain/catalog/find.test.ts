/** Finding a satellite as people ask for it (the page's search box): number, designator, common name, name. */
import { beforeAll, describe, expect, test } from 'bun:test'
import { buildCatalog, type Catalog } from '../../../src/domain/catalog/catalog.ts'
import { COMMON_NAMES, findSatellites } from '../../../src/domain/catalog/find.ts'
import { elementsOf, ommRecord } from '../../fixtures/synthetic.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'

let catalog: Catalog
beforeAll(() => {
  const sat = (id: number, name: string, objectId: string) => elementsOf(ommRecord({ NORAD_CAT_ID: id, OBJECT_NAME: name, OBJECT_ID: objectId }))
  catalog = buildCatalog(
    [
      {
        group: 'test',
        elements: [
          sat(25544, 'ISS (ZARYA)', '1998-067A'),
          sat(49044, 'ISS (NAUKA)', '2021-066A'),
          sat(66052, 'HRC CAMERA', '1998-067XR'),
          sat(20580, 'HST', '1990-037B'),
          sat(36508, 'SWISSCUBE', '2009-051B'),
          sat(65567, 'PRAETORIAN SDA_604', '2025-200C'),
          sat(70001, 'OBJECT 25544 DEB', '2026-001A'),
          sat(1998, 'OLD', '1998-067'),
        ],
      },
    ],
    { source: 'snapshot', obtainedAtMs: 0 },
    0,
  )
})

const found = (text: string, limit?: number) => findSatellites(catalog, text, limit).map((f) => [f.satellite.noradId, f.match, f.commonName])

describe('findSatellites', () => {
  test('a catalog number finds its satellite first, then names that contain the digits', () => {
    expect(found('25544')).toEqual([
      [25544, 'number', undefined],
      [70001, 'name', undefined],
    ])
    expect(found('99999')).toEqual([])
    // Leading zeros, as the routes read a catalog number.
    expect(found('0000025544')[0]).toEqual([25544, 'number', undefined])
  })

  test('an international designator, its TLE form, or without the hyphen finds the piece; a launch finds its lettered pieces', () => {
    for (const text of ['1998-067A', '98067A', '1998 067a', '1998067A']) expect(found(text)).toEqual([[25544, 'designator', undefined]])
    // The launch: the lettered pieces in catalogue order (1998, whose designator has no piece letter, is not one of them).
    expect(found('1998-067')).toEqual([
      [25544, 'designator', undefined],
      [66052, 'designator', undefined],
    ])
    expect(found('1998-067XR')).toEqual([[66052, 'designator', undefined]])
  })

  test('common names the catalogue does not use, with the name that matched', () => {
    expect(found('hubble')).toEqual([[20580, 'common name', 'Hubble']])
    expect(found('Hubble Space')).toEqual([[20580, 'common name', 'Hubble Space Telescope']])
    // A common name whose satellite is not in the catalogue finds nothing.
    expect(found('tiangong')).toEqual([])
  })

  test('names starting with the text come before names containing it, each in catalogue order, each satellite once', () => {
    expect(found('iss')).toEqual([
      [25544, 'common name', 'ISS'],
      [49044, 'name', undefined],
      [36508, 'name', undefined],
    ])
    expect(found('CAMERA')).toEqual([[66052, 'name', undefined]])
  })

  test('case, spaces, hyphens and underscores do not matter', () => {
    expect(found('  iss   (zarya) ')).toEqual([[25544, 'name', undefined]])
    expect(found('sda-604')).toEqual([[65567, 'name', undefined]])
    expect(found('praetorian sda 604')).toEqual([[65567, 'name', undefined]])
  })

  test('at most `limit`, and nothing for empty text or text that matches nothing', () => {
    expect(found('iss', 2)).toEqual([
      [25544, 'common name', 'ISS'],
      [49044, 'name', undefined],
    ])
    expect(found('')).toEqual([])
    expect(found('  -_ ')).toEqual([])
    expect(found('no such thing')).toEqual([])
  })

  test('on the embedded catalogue, each common name finds its satellite first, or, when the data lacks it, no common-name match', async () => {
    // The eight groups lack some (TESS, Envisat) that a fuller catalogue (--snapshot, --refresh-url) has.
    const embedded = await embeddedCatalog()
    let present = 0
    for (const { name, noradId } of COMMON_NAMES) {
      const results = findSatellites(embedded, name.toLowerCase(), 5)
      if (embedded.get(noradId)) {
        present++
        expect(results[0]?.satellite.noradId, name).toBe(noradId)
      } else expect(results.filter((f) => f.match === 'common name'), name).toEqual([])
    }
    expect(present).toBeGreaterThanOrEqual(COMMON_NAMES.length / 2)
    // Where catalogue names compete, the common name ranks its satellite first: `iss` is the ISS (ZARYA), not the ISS (NAUKA) module.
    expect(findSatellites(embedded, 'iss', 3)[0]!.satellite.name).toBe('ISS (ZARYA)')
  })
})
