/** Schemas and JSON shapes of GET /api/v1/passes (the passes of the catalogue over an observer). */
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import type { Satellite } from '../../../domain/catalog/catalog.ts'
import type { Pass } from '../../../domain/orbit/passes.ts'
import { PassSchema, passJson } from '../passes/model.ts'
import { elementAgeDaysAt, isoInstant } from '../satellites/model.ts'

export const SkyPassSchema = t.Composite([
  t.Object({
    noradId: Type.Integer(),
    name: t.String(),
    elementAgeDays: t.Number({ description: "Days from the element set's epoch to the pass's start (predictions degrade with it; none beyond the age limit)" }),
  }),
  PassSchema,
  t.Object({
    magnitude: t.Nullable(t.Number(), {
      description: "The brightest estimated magnitude while the satellite is sunlit in a dark sky (brightest.magnitude); null when it never is during the pass",
    }),
  }),
])

export const SkyPassesResponseSchema = t.Object({
  data: t.Array(SkyPassSchema, { description: 'Passes ordered by start (equal starts by catalog number)' }),
  metadata: t.Object({
    total: Type.Integer({ description: 'Passes found (on every page together)' }),
    page: t.Optional(Type.Integer({ description: 'The page shown, from 1 (only with page or page-size)' })),
    pageSize: t.Optional(Type.Integer({ description: 'Passes per page (only with page or page-size)' })),
    pages: t.Optional(Type.Integer({ description: 'How many pages the passes fill: ceil(total / pageSize)' })),
    observer: t.Object({ latitude: t.Number(), longitude: t.Number(), altitude: t.Number({ description: 'metres; 0 when omitted' }) }),
    from: isoInstant('Start of the searched time (`time`, or now)'),
    to: isoInstant('End of the searched time: from + hours, or 2100-01-01 if earlier'),
    hours: Type.Integer(),
    elevationThreshold: t.Number({ description: 'degrees' }),
    visibleOnly: t.Boolean(),
    magnitudeLimit: t.Number({ description: 'The faintest magnitude counted as visible (`magnitude-limit`)' }),
    group: t.Nullable(t.String({ description: 'The `group` asked for; null: the whole catalogue' })),
    frequency: t.Optional(t.Number({ description: 'MHz: the `frequency` asked for (each point then has dopplerShiftHz)' })),
    satellites: Type.Integer({
      description:
        'Satellites of the selection searched that have a position somewhere in the searched time (those SGP4 gives no plausible position anywhere in it are neither here nor in leftOut)',
    }),
    leftOut: t.Object(
      {
        elementAge: Type.Integer({ description: 'Satellites of the selection whose elements are further than the age limit from all of the searched time, or launched in a later year than all of it' }),
        decayed: Type.Integer({ description: 'Satellites of the selection decayed before the searched time' }),
      },
      { description: 'Satellites of the selection without a position anywhere in the searched time, by reason: never searched' },
    ),
    maxElementAgeDays: t.Nullable(t.Number({ description: 'The age limit on element sets, days (--max-element-age); null: none' })),
    noPosition: t.Array(
      t.Object({
        noradId: Type.Integer(),
        from: isoInstant('Start'),
        to: isoInstant('End'),
        reason: t.String({ description: 'Why, at the start of the stretch' }),
      }),
      {
        description:
          "Stretches of the searched time in which a searched satellite has no position (the age limit or its decay falls inside the searched time; an implausible height near a pass): no pass is looked for there, and a pass cut by one has rise or set null",
      },
    ),
    notice: t.Optional(t.String({ description: 'When most of the selection is left out: why, and what to do' })),
  }),
})

/** One pass of the catalogue-wide answer. */
export function skyPassJson(satellite: Satellite, pass: Pass, frequencyMHz: number | undefined) {
  return {
    noradId: satellite.noradId,
    name: satellite.name,
    elementAgeDays: elementAgeDaysAt(satellite, pass.startMs),
    ...passJson(pass, frequencyMHz),
    magnitude: pass.brightest?.magnitude ?? null,
  }
}
