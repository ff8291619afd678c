/** Schemas and JSON shapes of /nearby. */
import { type Static, Type } from '@sinclair/typebox'
import { t } from 'elysia'
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import type { NearbyEntry } from '../../../domain/nearby/selection.ts'
import { ELEMENT_AGE_DESCRIPTION, elementAgeDaysAt, OrbitalParamsSchema } from '../satellites/model.ts'
import { radioSchemaFields } from '../common.ts'
import { dopplerShiftHz } from '../../../domain/orbit/radio.ts'
import { NEARBY_DECIMALS as D, rounded, roundedAzimuth } from './precision.ts'

const basicFields = {
  noradId: Type.Integer(),
  name: t.String(),
  labels: t.Array(t.String()),
  altitude: t.Number({ description: 'km above the WGS84 ellipsoid, to 0.001' }),
  velocityKmHs: t.Number({ description: 'km/h, magnitude of the SGP4 (TEME) velocity, to 0.001' }),
  elevation: t.Number({ description: 'degrees above the horizon, to 0.000001' }),
  azimuth: t.Number({ description: 'degrees, 0 = north, 90 = east, in [0, 360), to 0.000001' }),
  range: t.Number({ description: 'km from the observer, to 0.001' }),
  ...radioSchemaFields({ rangeRate: '0.000001', dopplerShiftHz: '0.01' }),
  magnitude: t.Nullable(t.Number(), {
    description:
      "Estimated apparent visual magnitude, to 0.01 (smaller is brighter; good to ±1 or so: real satellites are not Lambertian spheres); null when the satellite is in the Earth's umbra",
  }),
  visible: t.Boolean({
    description: 'Visible to the naked eye: sunlit, the Sun at or below -6° at the observer, and magnitude at or below metadata.magnitudeLimit',
  }),
  observerDaytime: t.Boolean({ description: "the Sun's centre above -0.833° at the observer" }),
  satelliteSunlit: t.Boolean({ description: "not in the Earth's umbra" }),
  epoch: t.String({ format: 'date-time', description: "The element set's epoch" }),
  elementAgeDays: t.Number({ description: ELEMENT_AGE_DESCRIPTION }),
}

export const NearbyEntrySchema = t.Object({
  ...basicFields,
  geoposition: t.Optional(
    t.Object(
      {
        latitude: t.Number({ description: 'degrees, geodetic (WGS84), to 0.000001' }),
        longitude: t.Number({ description: 'degrees, -180..180, to 0.000001' }),
      },
      { description: 'extended mode only' },
    ),
  ),
  orbitalParams: t.Optional(OrbitalParamsSchema),
})

export const NearbyResponseSchema = t.Object({
  metadata: t.Object({
    total: Type.Integer(),
    mode: t.Union([t.Literal('basic'), t.Literal('extended')]),
    magnitudeLimit: t.Number({ description: 'The faintest magnitude counted as visible (`magnitude-limit`)' }),
    leftOut: t.Object(
      {
        elementAge: Type.Integer({ description: 'Satellites whose elements are further from this instant than the age limit, or launched in a later year than it (international designator)' }),
        decayed: Type.Integer({ description: 'Satellites decayed by this instant' }),
      },
      {
        description:
          'Satellites of the catalogue not considered at all, by reason (wherever they are in the sky); those SGP4 gives no plausible position at this instant are left out too, not counted',
      },
    ),
    frequency: t.Optional(t.Number({ description: 'MHz: the `frequency` asked for (each entry then has dopplerShiftHz)' })),
    maxElementAgeDays: t.Nullable(t.Number({ description: 'The age limit on element sets, days (--max-element-age); null: none' })),
    notice: t.Optional(t.String({ description: 'When most of the catalogue is left out: why, and what to do' })),
  }),
  observer: t.Object({
    latitude: t.Number({ description: 'degrees, as requested' }),
    longitude: t.Number({ description: 'degrees, as requested' }),
    altitude: t.Number({ description: 'metres; 0 when omitted' }),
    datetime: t.String({ format: 'date-time' }),
  }),
  satellites: t.Array(NearbyEntrySchema),
})

/**
 * One satellite of the answer, its numbers to the stated precision
 * (precision.ts), as one object literal (two: with and without the Doppler
 * shift, which sits between rangeRate and magnitude), the extended fields
 * added last: an answer has hundreds of entries, and spreading the pieces
 * together made each entry several times dearer to build. The keys, their
 * order and the values are those of the spread form
 * (test/http/routes/nearby.test.ts).
 */
export function nearbyEntryJson(entry: NearbyEntry, observerDaytime: boolean, extended: boolean, instantMs: number, frequencyMHz?: number) {
  const { satellite } = entry
  const altitude = rounded(entry.altitudeKm, D.km)
  const velocityKmHs = rounded(entry.speedKmH, D.kmPerHour)
  const elevation = rounded(entry.elevationDeg, D.degrees)
  const azimuth = roundedAzimuth(entry.azimuthDeg)
  const range = rounded(entry.rangeKm, D.km)
  const rangeRate = rounded(entry.rangeRateKmS, D.kmPerSecond)
  const magnitude = entry.magnitude === null ? null : rounded(entry.magnitude, D.magnitude)
  const elementAgeDays = elementAgeDaysAt(satellite, instantMs)
  const { noradId, name, labels, epoch } = satellite
  const { visible, sunlit: satelliteSunlit } = entry
  const json: Record<string, unknown> =
    frequencyMHz === undefined
      ? { noradId, name, labels, altitude, velocityKmHs, elevation, azimuth, range, rangeRate, magnitude, visible, observerDaytime, satelliteSunlit, epoch, elementAgeDays }
      : {
          noradId,
          name,
          labels,
          altitude,
          velocityKmHs,
          elevation,
          azimuth,
          range,
          rangeRate,
          dopplerShiftHz: rounded(dopplerShiftHz(frequencyMHz * 1e6, entry.rangeRateKmS), D.hertz),
          magnitude,
          visible,
          observerDaytime,
          satelliteSunlit,
          epoch,
          elementAgeDays,
        }
  if (extended) {
    json.geoposition = { latitude: rounded(entry.latitudeDeg!, D.degrees), longitude: rounded(entry.longitudeDeg!, D.degrees) }
    json.orbitalParams = satellite.orbitalParams
  }
  return json as NearbyEntryJson
}

/** A /nearby answer as an object. */
export type NearbyResponse = Static<typeof NearbyResponseSchema>

/** What a /nearby answer says, before it is written: its metadata and observer, and the satellites found (in `catalog`) with what their entries need. */
export interface NearbyFound {
  head: Omit<NearbyResponse, 'satellites'>
  catalog: Catalog
  entries: NearbyEntry[]
  observerDaytime: boolean
  extended: boolean
  instantMs: number
  frequencyMHz?: number
}

/** An entry as nearbyEntryJson makes it (the schema's fields; the extended ones with mode=extended, dopplerShiftHz with a frequency). */
export type NearbyEntryJson = Static<typeof NearbyEntrySchema>
