/** Selecting satellites by group, name, catalog number and launch. */
import { beforeAll, describe, expect, test } from 'bun:test'
import { buildCatalog, type Catalog } from '../../../src/domain/catalog/catalog.ts'
import { selectSatellites } from '../../../src/domain/catalog/select.ts'
import { elementsOf, ommRecord } from '../../fixtures/synthetic.ts'

let catalog: Catalog
beforeAll(() => {
  const sat = (id: number, name: string, objectId: string) => elementsOf(ommRecord({ NORAD_CAT_ID: id, OBJECT_NAME: name, OBJECT_ID: objectId }))
  catalog = buildCatalog(
    [
      { group: 'stations', elements: [sat(25544, 'ISS (ZARYA)', '1998-067A'), sat(49044, 'ISS (NAUKA)', '2021-066A'), sat(66052, 'HRC CAMERA', '1998-067XR')] },
      { group: 'Weather', elements: [sat(33591, 'NOAA 19', '2009-005A'), sat(25544, 'ISS (ZARYA)', '1998-067A')] },
      { group: 'numbers', elements: [sat(70001, 'OBJECT 25544 DEB', '2026-001A'), sat(1998, 'OLD', '1998-067')] },
    ],
    { source: 'snapshot', obtainedAtMs: 0 },
    0,
  )
})

const ids = (selection: Parameters<typeof selectSatellites>[1]) => selectSatellites(catalog, selection).map((s) => s.noradId)

describe('selectSatellites', () => {
  test('an empty selection keeps everything, ordered by noradId', () => {
    expect(ids({})).toEqual([1998, 25544, 33591, 49044, 66052, 70001])
  })

  test('group, without regard to case', () => {
    expect(ids({ group: 'stations' })).toEqual([25544, 49044, 66052])
    expect(ids({ group: 'weather' })).toEqual([25544, 33591])
    expect(ids({ group: 'WEATHER' })).toEqual([25544, 33591])
    expect(ids({ group: 'nope' })).toEqual([])
  })

  test('search: part of the name without regard to case, or the exact catalog number', () => {
    expect(ids({ search: 'iss (' })).toEqual([25544, 49044])
    expect(ids({ search: '25544' })).toEqual([25544, 70001])
    expect(ids({ search: '2554' })).toEqual([70001]) // by name; 25544 is not a prefix match
    expect(ids({ search: '33591' })).toEqual([33591])
  })

  test('nameContains ignores catalog numbers', () => {
    expect(ids({ nameContains: '33591' })).toEqual([])
    expect(ids({ nameContains: 'noaa' })).toEqual([33591])
  })

  test('ids: in catalogue order whatever the order asked; unknown ones dropped', () => {
    expect(ids({ ids: [49044, 1, 25544] })).toEqual([25544, 49044])
  })

  test('launch: every piece of a launch, or one piece', () => {
    expect(ids({ launch: '1998-067' })).toEqual([25544, 66052])
    expect(ids({ launch: '1998-067a' })).toEqual([25544])
    expect(ids({ launch: '1998-067XR' })).toEqual([66052])
    expect(ids({ launch: '1998-06' })).toEqual([])
  })

  test('criteria combine: all must hold', () => {
    expect(ids({ group: 'stations', search: 'iss', ids: [25544, 33591] })).toEqual([25544])
  })
})
