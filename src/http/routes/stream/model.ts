/** Schemas and shapes of the events of live position streams. */
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import type { Satellite } from '../../../domain/catalog/catalog.ts'
import type { SatelliteState } from '../../../domain/orbit/position.ts'
import type { LookAngles } from '../../../domain/orbit/sky.ts'
import { isoInstant, NoPositionReasonSchema, REFUSAL_KINDS_MEANING, RefusalKindSchema, SatellitePositionSchema, satellitePositionJson } from '../satellites/model.ts'


/** `data` of a `position` event (and of each entry of a `positions` event). */
export const StreamPositionSchema = t.Composite([
  SatellitePositionSchema,
  t.Object({
    velocityKmHs: t.Number({ description: 'km/h, magnitude of the SGP4 (TEME) velocity' }),
    azimuth: t.Optional(t.Number({ description: 'degrees from north through east, [0, 360): only with an observer' })),
    elevation: t.Optional(t.Number({ description: 'degrees above the horizon: only with an observer' })),
    range: t.Optional(t.Number({ description: 'km from the observer: only with an observer' })),
    rangeRate: t.Optional(t.Number({ description: 'km/s, how fast the range grows (negative while approaching): only with an observer' })),
    dopplerShiftHz: t.Optional(t.Number({ description: 'Hz, the shift of a signal at `frequency` as the observer receives it: only with an observer and a frequency' })),
  }),
])

/** `data` of a `no-position` event: this second the satellite has no valid position (or has left the catalogue). */
export const StreamNoPositionSchema = t.Object({
  noradId: Type.Integer(),
  datetime: isoInstant('The instant'),
  kind: t.Union([...RefusalKindSchema.anyOf, t.Literal('missing')], {
    description: `As a batch's noPositionReasons, so a client can tell a stop for good (decayed; element-age after the epoch; missing: no longer in the catalogue) from a gap: ${REFUSAL_KINDS_MEANING}`,
  }),
  message: t.String({ description: 'Why there is no position' }),
})

/** `data` of a `positions` event (the stream of several satellites): the batch geoposition answer at that second. */
export const StreamPositionsSchema = t.Object({
  data: t.Array(StreamPositionSchema, { description: 'The satellites with a position, in the order of ids' }),
  metadata: t.Object({
    total: Type.Integer(),
    datetime: isoInstant('The instant of every position'),
    missing: t.Array(Type.Integer(), { description: 'ids not in the catalogue' }),
    noPosition: t.Array(Type.Integer(), { description: 'ids without a valid position at that instant' }),
    noPositionReasons: t.Array(NoPositionReasonSchema, { description: 'Why each id of noPosition has none, in the same order' }),
  }),
})

export function streamPositionJson(
  satellite: Satellite,
  state: SatelliteState,
  instant: Date,
  look: (LookAngles & { rangeRate: number; dopplerShiftHz?: number }) | null,
) {
  const entry = { ...satellitePositionJson(satellite, state, instant), velocityKmHs: state.speedKmH }
  if (!look) return entry
  const radio = look.dopplerShiftHz === undefined ? { rangeRate: look.rangeRate } : { rangeRate: look.rangeRate, dopplerShiftHz: look.dopplerShiftHz }
  return { ...entry, azimuth: look.azimuthDeg, elevation: look.elevationDeg, range: look.rangeKm, ...radio }
}
