/** The passes view: the next passes of one satellite over the observer, the naked-eye visible ones marked. */
import type { NoPositionSpan, Pass, PassesAnswer, PassPoint, TimeSpan } from './api.ts'
import { byId, formatDate, formatElementAge, formatMagnitude, formatShortTime, formatTime, formatTimeSpan, html, svg } from './dom.ts'
import { compassPoint } from './geometry.ts'

const STAR = 'M0-5.5 1.6-1.6 5.5 0 1.6 1.6 0 5.5-1.6 1.6-5.5 0-1.6-1.6z'

/** "21:30:05 NW" with the azimuth in degrees for those who want it. */
function point(p: PassPoint | null, withElevation: boolean, missing = ''): HTMLElement | string {
  if (!p) return missing
  return html(
    'span',
    { class: 'pass-point' },
    `${formatTime(p.datetime)} `,
    html('abbr', { title: `azimuth ${p.azimuth.toFixed(0)}°` }, compassPoint(p.azimuth)),
    withElevation ? ` ${p.elevation.toFixed(0)}°` : '',
  )
}

/**
 * Where a pass without a rise (`begin`) or a set (`end`) was cut, when not by
 * the searched time: where the satellite's positions begin or end, given its
 * stretches without one. A pass has positions from its start to its
 * culmination, so the latest stretch ending before the culmination ends just
 * before it starts, and the first one starting after it starts just after it
 * ends. Null: the searched time cut it.
 */
export function positionsEdge(culmination: PassPoint, spans: readonly TimeSpan[], side: 'begin' | 'end'): string | null {
  const peak = Date.parse(culmination.datetime)
  let edge: number | null = null
  for (const span of spans) {
    if (side === 'begin') {
      const to = Date.parse(span.to)
      if (to < peak && (edge === null || to > edge)) edge = to
    } else {
      const from = Date.parse(span.from)
      if (from > peak && (edge === null || from < edge)) edge = from
    }
  }
  // The first millisecond with a position after the stretch, the last one before it.
  return edge === null ? null : new Date(side === 'begin' ? edge + 1 : edge - 1).toISOString()
}

/** The instant a pass's row is dated by: its rise, else where its positions begin, else its culmination. */
export function passDateOf(pass: Pass, spans: readonly TimeSpan[]): string {
  return pass.rise?.datetime ?? positionsEdge(pass.culmination, spans, 'begin') ?? pass.culmination.datetime
}

/** A missing rise or set: "already up" or "still up", or where the data begins or ends (with its date when not the row's). */
function cutCell(pass: Pass, spans: readonly TimeSpan[], side: 'begin' | 'end', rowDate: string): string {
  const edge = positionsEdge(pass.culmination, spans, side)
  if (edge === null) return side === 'begin' ? 'already up' : 'still up'
  const date = formatDate(edge) === rowDate ? '' : `${formatDate(edge)} `
  return `${side === 'begin' ? 'data from' : 'data until'} ${date}${formatTime(edge)}`
}

/** The stretches without a position, as a sentence (empty when none). */
function noPositionText(spans: readonly NoPositionSpan[]): string {
  return spans.map((s) => ` No position from ${formatDate(s.from)} ${formatShortTime(s.from)} to ${formatDate(s.to)} ${formatShortTime(s.to)}: ${s.reason}.`).join('')
}

function visibleCell(pass: Pass): HTMLElement {
  const brightest = pass.brightest
  if (!pass.visible) {
    // Sunlit in a dark sky but fainter than the limit: say how faint.
    const why = brightest ? `not visible: too faint (mag ${formatMagnitude(brightest.magnitude)})` : 'not visible'
    return html('td', { class: 'pass-seen' }, why)
  }
  const icon = svg('svg', { viewBox: '-6 -6 12 12', 'aria-hidden': 'true', class: 'icon' })
  icon.append(svg('path', { class: 'm-visible', d: STAR }))
  const window = pass.visibleWindow ? ` ${formatTimeSpan(pass.visibleWindow.from, pass.visibleWindow.to)}` : ''
  const magnitude = brightest ? html('span', { class: 'pass-mag', title: `brightest at ${formatTime(brightest.datetime)}` }, `, mag ${formatMagnitude(brightest.magnitude)}`) : ''
  return html('td', { class: 'pass-seen seen-visible' }, icon, ` visible${window}`, magnitude)
}

export class PassesView {
  private readonly body = byId<HTMLTableElement>('passes-table').tBodies[0]!
  private readonly summary = byId('passes-summary')

  show({ data: passes, metadata }: PassesAnswer): void {
    const visible = passes.filter((p) => p.visible).length
    const span = metadata.days === 1 ? 'day' : `${metadata.days} days`
    const threshold = `${metadata.elevationThreshold}°`
    const spans = metadata.noPosition
    this.summary.textContent =
      (passes.length === 0
        ? `${metadata.name}: no pass above ${threshold} in the next ${span}.`
        : `${metadata.name}: ${passes.length} pass${passes.length === 1 ? '' : 'es'} above ${threshold} in the next ${span}, ${visible} visible to the naked eye (magnitude ${formatMagnitude(metadata.magnitudeLimit)} or brighter).`) +
      ` Elements ${formatElementAge(metadata.elementAgeDays)} at the start.` +
      noPositionText(spans)
    this.body.replaceChildren(
      ...passes.map((pass) => {
        const date = formatDate(passDateOf(pass, spans))
        return html(
          'tr',
          { class: pass.visible ? 'row-visible' : '' },
          html('td', { class: 'pass-date' }, date),
          html('td', { 'data-label': 'Rise' }, point(pass.rise, false, cutCell(pass, spans, 'begin', date))),
          html('td', { 'data-label': 'Highest' }, point(pass.culmination, true)),
          html('td', { 'data-label': 'Set' }, point(pass.set, false, cutCell(pass, spans, 'end', date))),
          html('td', { class: 'num pass-minutes' }, (pass.duration / 60).toFixed(1)),
          visibleCell(pass),
        )
      }),
    )
  }

  message(text: string): void {
    this.summary.textContent = text
    this.body.replaceChildren()
  }
}
