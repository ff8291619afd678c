/**
 * A catalogue for the feed tests: the embedded snapshot's `stations` group (real
 * TLEs) plus a `synthetic` group read from OMM: one object past the TLE range
 * (270001, OMM only) and one within it (90010, TLE lines generated from OMM).
 */
import { buildCatalog, type Catalog } from '../../src/domain/catalog/catalog.ts'
import { elementsOf, ommRecord } from '../fixtures/synthetic.ts'
import { embeddedCatalog } from '../helpers/catalog.ts'

export const OMM_ONLY_ID = 270001
export const OMM_WITH_TLE_ID = 90010

export const SYNTHETIC_RECORDS = [
  ommRecord({ OBJECT_NAME: 'SYNTH OMM ONLY', OBJECT_ID: '2026-100A', NORAD_CAT_ID: OMM_ONLY_ID, EPOCH: '2026-05-30T06:07:08.123456' }),
  ommRecord({
    OBJECT_NAME: 'SYNTH, WITH TLE',
    OBJECT_ID: '2026-100B',
    NORAD_CAT_ID: OMM_WITH_TLE_ID,
    EPOCH: '2026-05-30T18:00:00.000001',
    MEAN_MOTION: 14.21234567,
    ECCENTRICITY: 0.0012345,
    INCLINATION: 98.7654,
    BSTAR: -0.000012345,
    MEAN_MOTION_DOT: -0.00000123,
  }),
]

export async function feedCatalog(): Promise<Catalog> {
  const embedded = await embeddedCatalog()
  const stations = embedded.satellites.filter((s) => s.groups.includes('stations')).map((s) => s.elements)
  return buildCatalog(
    [
      { group: 'stations', elements: stations },
      { group: 'synthetic', elements: SYNTHETIC_RECORDS.map(elementsOf) },
    ],
    { source: 'snapshot', obtainedAtMs: Date.UTC(2026, 4, 30) },
    Date.UTC(2026, 4, 30),
  )
}
