/**
 * The Tonight view: the passes of the whole catalogue visible to the naked eye
 * over the observer in the 12 hours from nightfall (or from the chosen instant
 * when the sky is dark already), brightest first or by time, each with when it
 * is visible, where it culminates, where it comes from and goes to, and its
 * brightest magnitude; one link adds them all to a calendar (format=ics).
 */
import type { NoPositionSpan, SkyPass, SkyPassesAnswer } from './api.ts'
import { byId, formatDate, formatMagnitude, formatShortTime, formatTime, formatTimeSpan, html, svg } from './dom.ts'
import { compassPoint } from './geometry.ts'
import { positionsEdge } from './passes.ts'

export type TonightOrder = 'brightness' | 'time'

const STAR = 'M0-5.5 1.6-1.6 5.5 0 1.6 1.6 0 5.5-1.6 1.6-5.5 0-1.6-1.6z'

const startOf = (p: SkyPass, from: string) => Date.parse(p.visibleWindow?.from ?? p.rise?.datetime ?? from)

/** The passes in the chosen order: brightest first (then by time), or by the start of their visible stretch. */
export function ordered(passes: readonly SkyPass[], order: TonightOrder, from: string): SkyPass[] {
  const byTime = (a: SkyPass, b: SkyPass) => startOf(a, from) - startOf(b, from) || a.noradId - b.noradId
  if (order === 'time') return [...passes].sort(byTime)
  return [...passes].sort((a, b) => (a.magnitude ?? 99) - (b.magnitude ?? 99) || byTime(a, b))
}

export class TonightView {
  private readonly body = byId<HTMLTableElement>('tonight-table').tBodies[0]!
  private readonly summary = byId('tonight-summary')
  /** The satellites left out for their elements' age or decay (the API's notice): as on the sky view, above all else. */
  private readonly notice = byId('tonight-notice')
  private readonly calendar = byId<HTMLAnchorElement>('tonight-calendar')
  private answer: SkyPassesAnswer | null = null
  private order: TonightOrder = 'brightness'

  constructor(private readonly actions: { showOnMap: (noradId: number) => void }) {
    this.body.addEventListener('click', (e) => {
      const button = (e.target as Element).closest<HTMLButtonElement>('button[data-norad]')
      if (button) this.actions.showOnMap(Number(button.dataset.norad))
    })
  }

  setOrder(order: TonightOrder): void {
    this.order = order
    this.render()
  }

  show(answer: SkyPassesAnswer, calendarUrl: string): void {
    this.answer = answer
    this.calendar.href = calendarUrl
    this.calendar.hidden = answer.data.length === 0
    this.render()
  }

  message(text: string): void {
    this.answer = null
    this.notice.hidden = true
    this.summary.textContent = text
    this.body.replaceChildren()
    this.calendar.hidden = true
  }

  private render(): void {
    const answer = this.answer
    if (!answer) return
    const { metadata } = answer
    const window = `${formatDate(metadata.from)} ${formatShortTime(metadata.from)} to ${formatDate(metadata.to)} ${formatShortTime(metadata.to)}`
    // Satellites whose positions begin or end inside the time: their passes there cannot be shown.
    const spansOf = new Map<number, NoPositionSpan[]>()
    for (const span of metadata.noPosition) (spansOf.get(span.noradId) ?? spansOf.set(span.noradId, []).get(span.noradId)!).push(span)
    const partly = spansOf.size
    const gaps = partly === 0 ? '' : ` ${partly.toLocaleString('en')} satellites have no position for part of this time (elements too far from it, launched later, or decayed): no pass of theirs is shown there.`
    this.notice.textContent = metadata.notice ?? ''
    this.notice.hidden = metadata.notice === undefined
    const rule = `visible to the naked eye (magnitude ${formatMagnitude(metadata.magnitudeLimit)} or brighter, above ${metadata.elevationThreshold}°) from ${window}`
    const searched = `${metadata.satellites.toLocaleString('en')} satellite${metadata.satellites === 1 ? '' : 's'}`
    // No satellite with a position in the time: no statement about passes can be made ("no pass" would be one).
    this.summary.textContent =
      metadata.satellites === 0
        ? `Passes cannot be worked out from ${window}: no satellite has a position then (see above).`
        : answer.data.length === 0
          ? `No pass ${rule}, out of ${searched}.${gaps}`
          : `${answer.data.length} pass${answer.data.length === 1 ? '' : 'es'} ${rule}, out of ${searched}.${gaps}`
    this.body.replaceChildren(...ordered(answer.data, this.order, metadata.from).map((pass) => this.row(pass, spansOf.get(pass.noradId) ?? [])))
  }

  private row(pass: SkyPass, spans: readonly NoPositionSpan[]): HTMLTableRowElement {
    const icon = svg('svg', { viewBox: '-6 -6 12 12', 'aria-hidden': 'true', class: 'icon' })
    icon.append(svg('path', { class: 'm-visible', d: STAR }))
    const w = pass.visibleWindow
    const when = w ? `${formatDate(w.from)} ${formatTimeSpan(w.from, w.to)}` : formatTime((pass.rise ?? pass.culmination).datetime)
    // Cut by the searched time: "(up)"; where the satellite's positions begin or end: "(data begins)", "(data ends)".
    const from = pass.rise ? compassPoint(pass.rise.azimuth) : positionsEdge(pass.culmination, spans, 'begin') === null ? '(up)' : '(data begins)'
    const to = pass.set ? compassPoint(pass.set.azimuth) : positionsEdge(pass.culmination, spans, 'end') === null ? '(up)' : '(data ends)'
    return html(
      'tr',
      { 'data-norad': String(pass.noradId), class: 'row-visible' },
      html('td', { class: 'pass-name' }, icon, ' ', html('button', { type: 'button', class: 'link', 'data-norad': String(pass.noradId), title: 'Follow it on the map' }, pass.name)),
      html('td', { class: 'pass-when', 'data-label': 'Visible' }, when),
      html(
        'td',
        { 'data-label': 'Highest' },
        `${pass.culmination.elevation.toFixed(0)}° `,
        html('abbr', { title: `azimuth ${pass.culmination.azimuth.toFixed(0)}°` }, compassPoint(pass.culmination.azimuth)),
        ` ${formatShortTime(pass.culmination.datetime)}`,
      ),
      html('td', { class: 'pass-across', 'data-label': 'Across the sky' }, `${from} → ${to}`),
      html('td', { class: 'num pass-mag', 'data-label': 'Magnitude' }, pass.magnitude === null ? '–' : formatMagnitude(pass.magnitude)),
    )
  }
}
