/**
 * The sky view: a polar plot of the satellites above the observer, a details
 * panel for the one hovered, tapped or picked, and a sortable table with the
 * same satellites as text.
 */
import type { NearbyAnswer, SkySatellite } from './api.ts'
import { byId, formatElementAge, formatMagnitude, formatTime, html, svg } from './dom.ts'
import { compassPoint, SKY_RADIUS, skyXY } from './geometry.ts'

export type SortKey = 'name' | 'noradId' | 'azimuth' | 'elevation' | 'range' | 'magnitude' | 'state'

export interface SkyFilter {
  /** Satellite numbers of the chosen group, or null for every group. */
  group: Set<number> | null
  visibleOnly: boolean
}

/** How a satellite looks from the ground: drawn with a different shape for each, never colour alone. */
type Seen = 'visible' | 'sunlit' | 'shadow'

const seenOf = (s: SkySatellite): Seen => (s.visible ? 'visible' : s.satelliteSunlit ? 'sunlit' : 'shadow')
const SEEN_RANK: Record<Seen, number> = { visible: 0, sunlit: 1, shadow: 2 }
const SEEN_TEXT: Record<Seen, string> = { visible: 'visible', sunlit: 'sunlit', shadow: 'shadow' }
const STAR = 'M0-5.5 1.6-1.6 5.5 0 1.6 1.6 0 5.5-1.6 1.6-5.5 0-1.6-1.6z'

/** A marker for one satellite, centred on 0,0 (the legend uses the same shapes). */
function marker(seen: Seen, scale = 1): SVGElement {
  if (seen === 'visible') return svg('path', { class: 'm-visible', d: STAR, transform: `scale(${0.6 * scale})` })
  if (seen === 'sunlit') return svg('circle', { class: 'm-sunlit', r: 2 * scale })
  return svg('rect', { class: 'm-shadow', x: -1.3 * scale, y: -1.3 * scale, width: 2.6 * scale, height: 2.6 * scale })
}

function legendIcon(seen: Seen): SVGSVGElement {
  const icon = svg('svg', { viewBox: '-6 -6 12 12', 'aria-hidden': 'true', class: 'icon' })
  icon.append(marker(seen, seen === 'visible' ? 1.6 : 1.6))
  return icon
}

const fixed1 = (n: number) => n.toFixed(1)

export class SkyView {
  private answer: NearbyAnswer | null = null
  private filter: SkyFilter = { group: null, visibleOnly: false }
  private sort: { key: SortKey; descending: boolean } = { key: 'elevation', descending: true }
  private selectedId: number | null = null
  private hoverId: number | null = null
  private drawn: SkySatellite[] = []
  private readonly plot = byId<SVGSVGElement>('sky-plot')
  private readonly marks = byId<SVGGElement>('sky-marks')
  private readonly highlight = byId<SVGGElement>('sky-highlight')
  private readonly details = byId('sky-details')
  private readonly table = byId<HTMLTableElement>('sky-table')
  private readonly summary = byId('sky-summary')

  constructor(private readonly actions: { showOnMap: (noradId: number) => void; showPasses: (noradId: number) => void }) {
    this.drawGrid()
    this.plot.addEventListener('pointermove', (e) => this.hoverAt(e))
    this.plot.addEventListener('pointerdown', (e) => {
      const hit = this.hitTest(e)
      if (hit) this.select(hit.noradId)
    })
    this.plot.addEventListener('pointerleave', () => this.setHover(null))
    for (const th of this.table.tHead!.querySelectorAll<HTMLTableCellElement>('th[data-key]')) {
      th.querySelector('button')!.addEventListener('click', () => this.sortBy(th.dataset.key as SortKey))
    }
    this.table.tBodies[0]!.addEventListener('click', (e) => {
      const button = (e.target as Element).closest<HTMLButtonElement>('button[data-norad]')
      if (button) this.select(Number(button.dataset.norad))
    })
    this.details.addEventListener('click', (e) => {
      const button = (e.target as Element).closest<HTMLButtonElement>('button[data-action]')
      if (!button) return
      const id = Number(button.dataset.norad)
      if (button.dataset.action === 'map') this.actions.showOnMap(id)
      else this.actions.showPasses(id)
    })
    this.updateSortHeaders()
  }

  /** Satellites currently in the answer (before filtering): name and number, for the satellite picker. */
  get satellites(): readonly SkySatellite[] {
    return this.answer?.satellites ?? []
  }

  setAnswer(answer: NearbyAnswer): void {
    this.answer = answer
    this.render()
  }

  setFilter(filter: SkyFilter): void {
    this.filter = filter
    this.render()
  }

  clear(message: string): void {
    this.answer = null
    this.drawn = []
    this.marks.replaceChildren()
    this.highlight.replaceChildren()
    this.table.tBodies[0]!.replaceChildren()
    this.summary.textContent = message
  }

  private drawGrid(): void {
    const grid = byId<SVGGElement>('sky-grid')
    grid.append(svg('circle', { class: 'sky-bg', r: SKY_RADIUS }))
    for (const elevation of [30, 60]) {
      grid.append(svg('circle', { class: 'grid', r: (SKY_RADIUS * (90 - elevation)) / 90 }))
      grid.append(svg('text', { class: 'grid-label', x: 1.5, y: -(SKY_RADIUS * (90 - elevation)) / 90 - 1.5 }, `${elevation}°`))
    }
    for (let az = 0; az < 360; az += 45) {
      const { x, y } = skyXY(az, 0)
      grid.append(svg('line', { class: 'grid', x1: 0, y1: 0, x2: x, y2: y }))
    }
    grid.append(svg('circle', { class: 'horizon', r: SKY_RADIUS }))
    for (const [label, az] of [['N', 0], ['E', 90], ['S', 180], ['W', 270]] as const) {
      const { x, y } = skyXY(az, 0, SKY_RADIUS + 9)
      grid.append(svg('text', { class: 'cardinal', x, y, 'dominant-baseline': 'central', 'text-anchor': 'middle' }, label))
    }
  }

  private passesFilter(s: SkySatellite): boolean {
    if (this.filter.visibleOnly && !s.visible) return false
    return this.filter.group === null || this.filter.group.has(s.noradId)
  }

  private render(): void {
    const all = this.answer?.satellites ?? []
    this.drawn = all.filter((s) => this.passesFilter(s))
    // Visible ones last, so they are drawn on top.
    const order = [...this.drawn].sort((a, b) => SEEN_RANK[seenOf(b)] - SEEN_RANK[seenOf(a)])
    const nodes = order.map((s) => {
      const { x, y } = skyXY(s.azimuth, s.elevation)
      const g = svg('g', { class: 'sat', 'data-norad': s.noradId, transform: `translate(${fixed1(x)} ${fixed1(y)})` })
      g.append(marker(seenOf(s)))
      return g
    })
    this.marks.replaceChildren(...nodes)
    if (this.answer) {
      const visible = this.drawn.filter((s) => s.visible).length
      const daytime = all[0]?.observerDaytime
      const light = daytime === undefined ? '' : daytime ? ' · daylight at the observer: nothing is visible to the naked eye' : ''
      // Satellites without a position at this instant are not "nothing above": the count says so.
      const left = this.answer.metadata.leftOut ?? { elementAge: 0, decayed: 0 }
      const leftOut = left.elementAge + left.decayed
      const reasons = [left.elementAge > 0 ? `${left.elementAge} for their elements' age or a later launch` : '', left.decayed > 0 ? `${left.decayed} decayed` : ''].filter(Boolean).join(', ')
      const refused = leftOut > 0 ? ` · ${leftOut} satellites left out: no position at this instant (${reasons})` : ''
      const drawn =
        all.length === 0
          ? 'No satellite above 10° to draw'
          : `${this.drawn.length} of ${all.length} satellites above 10° drawn, ${visible} visible to the naked eye (magnitude ${formatMagnitude(this.answer.metadata.magnitudeLimit)} or brighter)`
      this.summary.textContent = `${drawn} · ${formatTime(this.answer.observer.datetime)}${light}${refused}`
    }
    this.renderTable()
    this.renderHighlight()
  }

  private sorted(): SkySatellite[] {
    const { key, descending } = this.sort
    // No magnitude (in the Earth's shadow) sorts as fainter than any.
    const value = (s: SkySatellite): string | number => (key === 'state' ? SEEN_RANK[seenOf(s)] : key === 'magnitude' ? (s.magnitude ?? 99) : s[key])
    return [...this.drawn].sort((a, b) => {
      const va = value(a)
      const vb = value(b)
      const c = typeof va === 'string' ? va.localeCompare(vb as string) : va - (vb as number)
      return (descending ? -c : c) || a.noradId - b.noradId
    })
  }

  private renderTable(): void {
    const body = this.table.tBodies[0]!
    const focused = (document.activeElement as HTMLElement | null)?.dataset?.norad
    const rows = this.sorted().map((s) => {
      const seen = seenOf(s)
      const row = html(
        'tr',
        { 'data-norad': String(s.noradId), class: `row-${seen}` },
        html('td', {}, html('button', { type: 'button', class: 'link', 'data-norad': String(s.noradId) }, s.name)),
        html('td', { class: 'num col-norad' }, String(s.noradId)),
        html('td', { class: 'num' }, `${fixed1(s.azimuth)} ${compassPoint(s.azimuth)}`),
        html('td', { class: 'num' }, fixed1(s.elevation)),
        html('td', { class: 'num' }, Math.round(s.range).toLocaleString('en')),
        html('td', { class: 'num col-mag' }, s.magnitude === null ? '–' : formatMagnitude(s.magnitude)),
        html('td', {}, legendIcon(seen), html('span', { class: 'seen-text' }, ` ${SEEN_TEXT[seen]}`)),
      )
      if (s.noradId === this.selectedId) row.setAttribute('aria-current', 'true')
      return row
    })
    if (rows.length === 0 && this.answer) {
      const empty =
        this.answer.metadata.notice !== undefined
          ? this.answer.satellites.length === 0
            ? 'No satellite shown: none with a position at this instant is above 10°, and the others are left out (see the notice above).'
            : 'No satellite shown: most have no position at this instant (see the notice above).'
          : this.answer.satellites.length === 0
            ? 'No satellite above 10° at this instant.'
            : 'No satellite matches the filter.'
      rows.push(html('tr', {}, html('td', { colspan: '7' }, empty)))
    }
    body.replaceChildren(...rows)
    if (focused) body.querySelector<HTMLButtonElement>(`button[data-norad="${focused}"]`)?.focus({ preventScroll: true })
  }

  private sortBy(key: SortKey): void {
    if (this.sort.key === key) this.sort = { key, descending: !this.sort.descending }
    else this.sort = { key, descending: key === 'elevation' }
    this.updateSortHeaders()
    this.renderTable()
  }

  private updateSortHeaders(): void {
    for (const th of this.table.tHead!.querySelectorAll<HTMLTableCellElement>('th[data-key]')) {
      const active = th.dataset.key === this.sort.key
      th.setAttribute('aria-sort', active ? (this.sort.descending ? 'descending' : 'ascending') : 'none')
    }
  }

  private select(noradId: number): void {
    this.selectedId = noradId
    for (const row of this.table.tBodies[0]!.rows) {
      if (Number(row.dataset.norad) === noradId) row.setAttribute('aria-current', 'true')
      else row.removeAttribute('aria-current')
    }
    this.renderHighlight()
  }

  private hitTest(e: PointerEvent): SkySatellite | null {
    const ctm = this.plot.getScreenCTM()
    if (!ctm) return null
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse())
    // About 12 px on screen, whatever the plot's size: a finger is wider than a marker.
    const reach = 12 / ctm.a
    let best: SkySatellite | null = null
    let bestDistance = reach * reach
    for (const s of this.drawn) {
      const { x, y } = skyXY(s.azimuth, s.elevation)
      const d = (x - p.x) ** 2 + (y - p.y) ** 2
      if (d <= bestDistance) {
        best = s
        bestDistance = d
      }
    }
    return best
  }

  private hoverAt(e: PointerEvent): void {
    this.setHover(this.hitTest(e)?.noradId ?? null)
  }

  private setHover(noradId: number | null): void {
    if (noradId === this.hoverId) return
    this.hoverId = noradId
    this.renderHighlight()
  }

  /** The ring and label on the hovered or selected satellite, and its details. */
  private renderHighlight(): void {
    const focus = this.drawn.find((s) => s.noradId === (this.hoverId ?? this.selectedId)) ?? null
    this.highlight.replaceChildren()
    if (focus) {
      const { x, y } = skyXY(focus.azimuth, focus.elevation)
      const right = x < SKY_RADIUS * 0.4
      this.highlight.append(
        svg('circle', { class: 'ring', cx: fixed1(x), cy: fixed1(y), r: 6 }),
        svg('text', { class: 'sat-label', x: fixed1(x + (right ? 8 : -8)), y: fixed1(y + 2), 'text-anchor': right ? 'start' : 'end' }, focus.name),
      )
    }
    this.renderDetails(focus)
  }

  private renderDetails(s: SkySatellite | null): void {
    if (!s) {
      this.details.replaceChildren(html('p', { class: 'hint' }, 'Hover over or tap a satellite, or pick one in the table.'))
      return
    }
    // A refresh redraws the panel: keep the keyboard where it was.
    const focusedAction = this.details.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.action : undefined
    const seen = seenOf(s)
    const row = (term: string, value: string) => [html('dt', {}, term), html('dd', {}, value)]
    this.details.replaceChildren(
      html('h2', {}, legendIcon(seen), ` ${s.name}`),
      html(
        'dl',
        {},
        ...row('NORAD', String(s.noradId)),
        ...row('Azimuth', `${fixed1(s.azimuth)}° (${compassPoint(s.azimuth)})`),
        ...row('Elevation', `${fixed1(s.elevation)}°`),
        ...row('Range', `${Math.round(s.range).toLocaleString('en')} km`),
        ...row('Height', `${Math.round(s.altitude).toLocaleString('en')} km`),
        ...row('Sunlit', s.satelliteSunlit ? 'yes' : "no (in Earth's shadow)"),
        ...row('Magnitude', s.magnitude === null ? "– (in Earth's shadow)" : `${formatMagnitude(s.magnitude)} (estimate, ±1)`),
        ...row('Naked eye', s.visible ? 'visible' : s.satelliteSunlit && !s.observerDaytime ? 'not visible (too faint or sky not dark)' : 'not visible'),
        ...row('Elements', formatElementAge(s.elementAgeDays)),
      ),
      html(
        'p',
        { class: 'actions' },
        html('button', { type: 'button', 'data-action': 'map', 'data-norad': String(s.noradId) }, 'Show on map'),
        ' ',
        html('button', { type: 'button', 'data-action': 'passes', 'data-norad': String(s.noradId) }, 'Next passes'),
      ),
    )
    if (focusedAction) this.details.querySelector<HTMLButtonElement>(`button[data-action="${focusedAction}"]`)?.focus({ preventScroll: true })
  }
}
