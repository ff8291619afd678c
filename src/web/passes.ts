/** The passes view: the next passes of one satellite over the observer, the naked-eye visible ones marked. */
import type { Pass, PassesAnswer, PassPoint } from './api.ts'
import { byId, formatDate, formatMagnitude, formatShortTime, formatTime, html, svg } from './dom.ts'
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

function visibleCell(pass: Pass): HTMLElement {
  const brightest = pass.brightest
  if (!pass.visible) {
    // Sunlit in a dark sky but fainter than the limit: say how faint.
    const why = brightest ? `not visible: too faint (mag ${formatMagnitude(brightest.magnitude)})` : 'not visible'
    return html('td', { class: 'pass-seen' }, why)
  }
  const icon = svg('svg', { viewBox: '-6 -6 12 12', 'aria-hidden': 'true', class: 'icon' })
  icon.append(svg('path', { class: 'm-visible', d: STAR }))
  const window = pass.visibleWindow ? ` ${formatShortTime(pass.visibleWindow.from)}–${formatShortTime(pass.visibleWindow.to)}` : ''
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
    this.summary.textContent =
      passes.length === 0
        ? `${metadata.name}: no pass above ${threshold} in the next ${span}.`
        : `${metadata.name}: ${passes.length} pass${passes.length === 1 ? '' : 'es'} above ${threshold} in the next ${span}, ${visible} visible to the naked eye (magnitude ${formatMagnitude(metadata.magnitudeLimit)} or brighter).`
    this.body.replaceChildren(
      ...passes.map((pass) =>
        html(
          'tr',
          { class: pass.visible ? 'row-visible' : '' },
          html('td', { class: 'pass-date' }, formatDate((pass.rise ?? pass.culmination).datetime)),
          html('td', { 'data-label': 'Rise' }, point(pass.rise, false, 'already up')),
          html('td', { 'data-label': 'Highest' }, point(pass.culmination, true)),
          html('td', { 'data-label': 'Set' }, point(pass.set, false, 'still up')),
          html('td', { class: 'num pass-minutes' }, (pass.duration / 60).toFixed(1)),
          visibleCell(pass),
        ),
      ),
    )
  }

  message(text: string): void {
    this.summary.textContent = text
    this.body.replaceChildren()
  }
}
