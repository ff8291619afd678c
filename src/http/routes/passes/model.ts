/** Schemas and JSON shapes of /satellites/:noradId/passes. */
import { Type } from '@sinclair/typebox'
import { t } from 'elysia'
import type { NoPositionSpan, Pass, SkyPoint, TimeSpan } from '../../../domain/orbit/passes.ts'
import { iso, isoInstant } from '../satellites/model.ts'
import { radioJson, radioSchemaFields } from '../common.ts'


const pointFields = {
  datetime: isoInstant('The instant, ms precision'),
  azimuth: t.Number({ description: 'degrees, 0 = north, 90 = east, in [0, 360)' }),
  elevation: t.Number({ description: 'degrees above the horizon' }),
  ...radioSchemaFields(),
}

export const PassPointSchema = t.Object(pointFields, { description: 'Where the satellite is in the sky at an instant' })

const MAGNITUDE_NOTE = 'estimated apparent visual magnitude, to 0.01 (smaller is brighter; good to about ±1: real satellites are not Lambertian spheres)'

export const CulminationSchema = t.Object(
  {
    ...pointFields,
    range: t.Number({ description: 'km from the observer' }),
    magnitude: t.Nullable(t.Number(), { description: `The ${MAGNITUDE_NOTE}; null when the satellite is in the Earth's umbra there` }),
  },
  { description: 'The highest point of the pass (within the searched time)' },
)

export const BrightestSchema = t.Object(
  { ...pointFields, range: t.Number({ description: 'km from the observer' }), magnitude: t.Number({ description: `The ${MAGNITUDE_NOTE}` }) },
  {
    description:
      'The brightest moment of the pass while the satellite is sunlit and the Sun is at or below -6° at the observer (for a visible pass, its brightest visible moment)',
  },
)

export const TimeSpanSchema = t.Object({ from: isoInstant('Start'), to: isoInstant('End') })

export const PassSchema = t.Object({
  rise: t.Nullable(PassPointSchema, {
    description:
      'Where the satellite climbs through the threshold; null when it is above the threshold already at the start of the searched time (metadata.from), or where its positions begin (see metadata.noPosition)',
  }),
  culmination: CulminationSchema,
  brightest: t.Nullable(BrightestSchema, {
    description: 'null when the satellite is never sunlit in a dark sky during the pass. The pass is visible exactly when this magnitude is at or below metadata.magnitudeLimit',
  }),
  set: t.Nullable(PassPointSchema, {
    description:
      'Where it sinks through the threshold; null when it is still above the threshold at the end of the searched time (metadata.to), or where its positions end',
  }),
  duration: t.Number({ description: 'Seconds at or above the threshold within the searched time (from the rise or the start, to the set or the end)' }),
  visible: t.Boolean({
    description:
      'Visible to the naked eye at some moment of the pass: sunlit (not in the umbra) while the Sun is at or below -6° at the observer, and its magnitude at or below metadata.magnitudeLimit',
  }),
  visibleWindow: t.Nullable(TimeSpanSchema, { description: 'The first stretch of the pass in which it is visible; null when it never is' }),
  visibleWindows: t.Array(TimeSpanSchema, {
    description: 'Every visible stretch, in order (more than one only in long passes of high orbits: the sky darkens or brightens, or the satellite crosses the shadow)',
  }),
})

export const PassesResponseSchema = t.Object({
  data: t.Array(PassSchema, { description: 'Passes in time order' }),
  metadata: t.Object({
    total: Type.Integer({ description: 'Number of passes listed' }),
    noradId: Type.Integer(),
    name: t.String(),
    epoch: isoInstant("The element set's epoch (predictions degrade as the search moves away from it)"),
    elementAgeDays: t.Number({ description: "Days from the element set's epoch to `from` (negative before it); no passes beyond the age limit (--max-element-age)" }),
    observer: t.Object({
      latitude: t.Number(),
      longitude: t.Number(),
      altitude: t.Number({ description: 'metres; 0 when omitted' }),
    }),
    from: isoInstant('Start of the searched time (`time`, or now)'),
    to: isoInstant('End of the searched time: from + days, or 2100-01-01 if earlier'),
    days: Type.Integer(),
    elevationThreshold: t.Number({ description: 'degrees' }),
    visibleOnly: t.Boolean(),
    magnitudeLimit: t.Number({ description: 'The faintest magnitude counted as visible (`magnitude-limit`)' }),
    frequency: t.Optional(t.Number({ description: 'MHz: the `frequency` asked for (each point then has dopplerShiftHz)' })),
    standardMagnitude: t.Number({ description: "The satellite's estimated standard magnitude (at 1,000 km and 90° phase) behind its magnitudes" }),
    noPosition: t.Array(
      t.Object({ from: isoInstant('Start'), to: isoInstant('End'), reason: t.String({ description: 'Why, at the start of the stretch' }) }),
      { description: 'Stretches of the searched time in which the satellite has no valid position (stale or decayed elements); no pass is looked for there' },
    ),
  }),
})

function pointJson(point: SkyPoint, frequencyMHz: number | undefined) {
  return { datetime: iso(point.instantMs), azimuth: point.azimuthDeg, elevation: point.elevationDeg, ...radioJson(point.rangeRateKmS, frequencyMHz) }
}

function spanJson(span: TimeSpan) {
  return { from: iso(span.fromMs), to: iso(span.toMs) }
}

/** A pass as the pass routes answer it; `frequencyMHz` (the `frequency` asked for) adds each point's Doppler shift. */
export function passJson(pass: Pass, frequencyMHz?: number) {
  const windows = pass.visible.map(spanJson)
  return {
    rise: pass.rise && pointJson(pass.rise, frequencyMHz),
    culmination: { ...pointJson(pass.culmination, frequencyMHz), range: pass.culmination.rangeKm, magnitude: pass.culmination.magnitude },
    brightest: pass.brightest && { ...pointJson(pass.brightest, frequencyMHz), range: pass.brightest.rangeKm, magnitude: pass.brightest.magnitude },
    set: pass.set && pointJson(pass.set, frequencyMHz),
    duration: (pass.endMs - pass.startMs) / 1000,
    visible: windows.length > 0,
    visibleWindow: windows[0] ?? null,
    visibleWindows: windows,
  }
}

export function noPositionJson(span: NoPositionSpan) {
  return { ...spanJson(span), reason: span.reason }
}
