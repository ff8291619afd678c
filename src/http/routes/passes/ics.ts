/**
 * Passes as an iCalendar file (RFC 5545), for `format=ics` on both pass routes:
 * one VEVENT per pass, from its rise to its set, so a calendar can show (and
 * remind of) them, and subscribe to the URL.
 *
 * - UIDs are stable: the satellite, the observer (to 0.001°), the threshold and
 *   the pass's own instant (its culmination to the minute; for a pass cut by the
 *   searched time or where the satellite's positions begin or end, its set or
 *   rise). The same pass asked for again (a calendar
 *   refreshing a subscription, new elements moving it by seconds) keeps its UID,
 *   so the calendar updates the event rather than adding a second one.
 * - SUMMARY: the satellite, the highest elevation and its compass direction, and
 *   the magnitude (the brightest visible moment's; else the culmination's), e.g.
 *   `ISS (ZARYA): 72° SSW, mag -3.2, visible`.
 * - Times are UTC (`…Z`); text is escaped (`\\`, `;`, `,`, newlines) and lines are
 *   folded at 75 octets without splitting a UTF-8 character; lines end in CRLF.
 */
import { beginsWithPositions, endsWithPositions, type Pass, type SkyPoint } from '../../../domain/orbit/passes.ts'

/** One pass of one satellite. */
export interface CalendarPass {
  noradId: number
  name: string
  /** The epoch of the element set the pass is predicted from, ms since 1970. */
  epochMs: number
  pass: Pass
}

export interface CalendarRequest {
  /** The calendar's name (X-WR-CALNAME, NAME). */
  title: string
  observer: { latitude: number; longitude: number; altitude: number }
  elevationThreshold: number
  magnitudeLimit: number
  /** When the calendar is made, ms since 1970 (DTSTAMP). */
  generatedMs: number
  /** The searched time, ms since 1970: a pass cut elsewhere was cut where the satellite's positions begin or end. */
  fromMs: number
  toMs: number
  /** The service version (PRODID). */
  version: string
  /**
   * What the events cannot show: why most satellites are left out (stale
   * data), that some have no position for part of the time. The calendar's
   * description, so that an empty or thin calendar says why.
   */
  description?: string
  passes: CalendarPass[]
}

export const ICS_CONTENT_TYPE = 'text/calendar; charset=utf-8'
/** The OpenAPI declaration of the calendar answer beside JSON (a route's `x-response-content`). */
export const ICS_CONTENT_DOC = { 'text/calendar': { schema: { type: 'string', description: 'format=ics: an iCalendar file (RFC 5545), one VEVENT per pass' } } } as const

/** What a stretch without positions means for the events, for a calendar's description (both pass routes). */
export const WITHOUT_POSITION = 'no pass is looked for there, and a pass reaching such a stretch ends (or begins) at it'

const COMPASS = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW', 'W', 'WNW', 'NW', 'NNW'] as const

/** The nearest of the 16 compass points for an azimuth in degrees. */
export function compassPoint(azimuthDeg: number): string {
  return COMPASS[Math.round((((azimuthDeg % 360) + 360) % 360) / 22.5) % 16]!
}

/** `20260531T001512Z`: an instant as an RFC 5545 UTC DATE-TIME (whole seconds, rounded down). */
export function icsDateTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')
}

/** TEXT value escaping (RFC 5545 §3.3.11). */
export function escapeText(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r\n|\r|\n/g, '\\n')
}

const encoder = new TextEncoder()

/** One content line folded at 75 octets (RFC 5545 §3.1), continuation lines starting with a space; never inside a UTF-8 character. */
export function foldLine(line: string): string {
  if (encoder.encode(line).length <= 75) return line
  const parts: string[] = []
  let current = ''
  let size = 0
  let limit = 75
  for (const char of line) {
    const bytes = encoder.encode(char).length
    if (size + bytes > limit) {
      parts.push(current)
      current = ''
      size = 0
      limit = 74 // the leading space takes one octet
    }
    current += char
    size += bytes
  }
  parts.push(current)
  return parts.join('\r\n ')
}

const minute = (ms: number) => icsDateTime(Math.round(ms / 60_000) * 60_000).slice(0, 13)
const degrees = (n: number) => `${Math.round(n)}°`
const magnitudeText = (m: number) => (m < 0 ? `-${Math.abs(m).toFixed(1)}` : `+${m.toFixed(1)}`)

/** The pass's own instant for its UID: the culmination of a whole pass, else the end of it that the searched time did not cut. */
function keyInstant(pass: Pass): string {
  if (pass.rise && pass.set) return minute(pass.culmination.instantMs)
  if (pass.set) return `set${minute(pass.set.instantMs)}`
  if (pass.rise) return `rise${minute(pass.rise.instantMs)}`
  return 'up' // above the threshold all the time it has positions in the searched time (a geostationary satellite)
}

export function passUid(noradId: number, pass: Pass, observer: CalendarRequest['observer'], threshold: number): string {
  const where = `${observer.latitude.toFixed(3)}_${observer.longitude.toFixed(3)}_${Math.round(observer.altitude)}m`
  return `sattrack-${noradId}-${keyInstant(pass)}-${where}-e${threshold}@sattrack`
}

/** The magnitude a pass is summed up by: its brightest moment sunlit in a dark sky (the JSON's `brightest`), or none. */
function passMagnitude(pass: Pass): number | null {
  return pass.brightest?.magnitude ?? null
}

export function passSummary(name: string, pass: Pass): string {
  const magnitude = passMagnitude(pass)
  const parts = [`${name}: ${degrees(pass.culmination.elevationDeg)} ${compassPoint(pass.culmination.azimuthDeg)}`]
  parts.push(magnitude === null ? 'not in a dark sky while sunlit' : `mag ${magnitudeText(magnitude)}`)
  if (pass.visible.length > 0) parts.push('visible')
  return parts.join(', ')
}

const time = (ms: number) => new Date(ms).toISOString().slice(11, 19)
const point = (label: string, p: SkyPoint | null, missing: string) =>
  p ? `${label} ${time(p.instantMs)} UTC at ${degrees(p.elevationDeg)} ${compassPoint(p.azimuthDeg)} (azimuth ${p.azimuthDeg.toFixed(0)}°)` : `${label}: ${missing}`

function passDescription(item: CalendarPass, request: CalendarRequest): string {
  const { pass } = item
  // A pass without a rise or a set was cut by the searched time, or where the satellite's positions begin or end (the elements' age limit, a decay).
  const noRise = beginsWithPositions(pass, request.fromMs)
    ? `above the threshold already where its positions begin, ${time(pass.startMs)} UTC (the data gives none before)`
    : 'above the threshold already at the start of the searched time'
  const noSet = endsWithPositions(pass, request.toMs)
    ? `still above the threshold where its positions end, ${time(pass.endMs)} UTC (the data gives none after)`
    : 'still above the threshold at the end of the searched time'
  const lines = [
    `${item.name} (NORAD ${item.noradId}) above ${request.elevationThreshold}° from ${request.observer.latitude}, ${request.observer.longitude}.`,
    point('Rise', pass.rise, noRise),
    point('Highest', pass.culmination, ''),
    point('Set', pass.set, noSet),
  ]
  if (pass.visible.length > 0) {
    const windows = pass.visible.map((w) => `${time(w.fromMs)}–${time(w.toMs)} UTC`).join(', ')
    lines.push(`Visible to the naked eye ${windows}${pass.brightest ? `, brightest magnitude ${magnitudeText(pass.brightest.magnitude)}` : ''} (limit ${request.magnitudeLimit}).`)
  } else {
    lines.push(pass.brightest ? `Not visible: too faint (magnitude ${magnitudeText(pass.brightest.magnitude)}, limit ${request.magnitudeLimit}).` : 'Not visible to the naked eye (in daylight or in the Earth\'s shadow).')
  }
  const days = (pass.startMs - item.epochMs) / 86_400_000
  lines.push(
    `Predicted from the element set of ${new Date(item.epochMs).toISOString().slice(0, 16)}Z (${Math.abs(days).toFixed(1)} days ${days >= 0 ? 'before' : 'after'} the pass); predictions drift as elements age, so a subscribed calendar is updated as the data is.`,
  )
  return lines.join('\n')
}

/** The calendar: one VEVENT per pass, in the order given. */
export function passesCalendar(request: CalendarRequest): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    `PRODID:-//sattrack//sattrack ${request.version}//EN`,
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `NAME:${escapeText(request.title)}`,
    `X-WR-CALNAME:${escapeText(request.title)}`,
    // RFC 7986: how often a subscribing calendar should ask again.
    'REFRESH-INTERVAL;VALUE=DURATION:PT6H',
    'X-PUBLISHED-TTL:PT6H',
    // RFC 7986's DESCRIPTION, and the X-WR-CALDESC calendar apps show.
    ...(request.description === undefined ? [] : [`DESCRIPTION:${escapeText(request.description)}`, `X-WR-CALDESC:${escapeText(request.description)}`]),
  ]
  const stamp = icsDateTime(request.generatedMs)
  for (const item of request.passes) {
    const { pass } = item
    lines.push(
      'BEGIN:VEVENT',
      `UID:${passUid(item.noradId, pass, request.observer, request.elevationThreshold)}`,
      `DTSTAMP:${stamp}`,
      `DTSTART:${icsDateTime(pass.startMs)}`,
      // At least a second long: DTEND must come after DTSTART.
      `DTEND:${icsDateTime(Math.max(pass.endMs, pass.startMs + 1000))}`,
      `SUMMARY:${escapeText(passSummary(item.name, pass))}`,
      `DESCRIPTION:${escapeText(passDescription(item, request))}`,
      `GEO:${request.observer.latitude.toFixed(6)};${request.observer.longitude.toFixed(6)}`,
      'CATEGORIES:SATELLITE PASS',
      'TRANSP:TRANSPARENT',
      'END:VEVENT',
    )
  }
  lines.push('END:VCALENDAR')
  return `${lines.map(foldLine).join('\r\n')}\r\n`
}

/** The calendar as an answer: text/calendar, shown inline (a calendar can subscribe to the URL) with a file name for those who save it. */
export function calendarResponse(calendar: string, fileName: string): Response {
  return new Response(calendar, {
    headers: {
      'content-type': ICS_CONTENT_TYPE,
      'content-disposition': `inline; filename="${fileName}"`,
      'cache-control': 'no-cache',
    },
  })
}
