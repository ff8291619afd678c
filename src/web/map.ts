/**
 * The map view: a world map (equirectangular) with one satellite at the
 * chosen instant, the area it can be seen from (its footprint: above the
 * horizon), its ground track from 90 minutes back to 90 minutes ahead, the
 * night side, the point under the Sun and the observer. The world is drawn
 * three times side by side (`<use>` copies), so following the satellite keeps
 * it in the middle of the map by moving the view box, with no seam.
 */
import type { Geoposition, Observer, TrackPoint } from './api.ts'
import { byId, formatElementAge, formatTime, svg } from './dom.ts'
import { footprint, MAP_HEIGHT, MAP_WIDTH, mapPath, mapXY, nightPolygon, splitAtAntimeridian, splitAtGaps, subsolarPoint } from './geometry.ts'

export const TRACK_HALF_SPAN_MS = 90 * 60_000

export interface MapState {
  name: string
  position: Geoposition | null
  track: TrackPoint[]
  observer: Observer | null
  /** The instant shown: the position's, or the chosen one. */
  instant: Date
  /** Keep the satellite in the middle of the map. */
  follow: boolean
}

/** A box in map units. */
interface Box {
  x1: number
  y1: number
  x2: number
  y2: number
}
const overlaps = (a: Box, b: Box) => a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2

/** Label font size and the average width of a bold character, CSS pixels. */
const LABEL_PX = 14
const CHAR_PX = 8.6

export class MapView {
  private readonly map = byId<SVGSVGElement>('map-plot')
  private readonly night = byId<SVGGElement>('map-night')
  private readonly area = byId<SVGGElement>('map-footprint')
  private readonly track = byId<SVGGElement>('map-track')
  private readonly marks = byId<SVGGElement>('map-marks')
  private state: MapState | null = null

  constructor() {
    this.drawGraticule()
    // Markers keep their size on screen at any map width.
    new ResizeObserver(() => this.render()).observe(this.map)
  }

  show(state: MapState): void {
    this.state = state
    // The world outline is loaded when the map is first shown, not with the page (most visits start on the sky).
    const world = this.map.querySelector<SVGImageElement>('image.world')
    if (world && !world.hasAttribute('href')) world.setAttribute('href', world.dataset.href!)
    this.render()
  }

  private drawGraticule(): void {
    const grid = byId<SVGGElement>('map-grid')
    for (let lon = -180; lon < 180; lon += 30) {
      const x = mapXY(0, lon).x
      grid.append(svg('line', { class: lon === 0 ? 'map-grid map-grid-main' : 'map-grid', x1: x, y1: 0, x2: x, y2: MAP_HEIGHT }))
    }
    for (let lat = -60; lat <= 60; lat += 30) {
      const y = mapXY(lat, 0).y
      grid.append(svg('line', { class: lat === 0 ? 'map-grid map-grid-main' : 'map-grid', x1: 0, y1: y, x2: MAP_WIDTH, y2: y }))
    }
  }

  private render(): void {
    const state = this.state
    const width = this.map.getBoundingClientRect().width
    if (!state || width === 0) return // hidden: drawn when shown (the resize observer fires then)
    /** SVG units per CSS pixel at the map's current size. */
    const u = MAP_WIDTH / width
    const p = state.position ? mapXY(state.position.latitude, state.position.longitude) : null
    // The view box: the whole world from -180°, or centred on the satellite.
    const left = state.follow && p ? p.x - MAP_WIDTH / 2 : 0
    this.map.setAttribute('viewBox', `${Number(left.toFixed(1))} 0 ${MAP_WIDTH} ${MAP_HEIGHT}`)
    this.map.dataset.follow = String(state.follow && p !== null)
    this.night.replaceChildren(svg('path', { class: 'night', d: mapPath(nightPolygon(state.instant), true) }))
    this.area.replaceChildren(
      ...(state.position ? [svg('path', { class: 'footprint', d: mapPath(footprint(state.position.latitude, state.position.longitude, state.position.altitude), true) })] : []),
    )

    const nowMs = state.instant.getTime()
    const past = state.track.filter((point) => Date.parse(point.datetime) <= nowMs)
    const future = state.track.filter((point) => Date.parse(point.datetime) >= nowMs)
    if (state.position) {
      past.push(state.position)
      future.unshift(state.position)
    }
    const lines = (points: TrackPoint[] | Geoposition[], cls: string) =>
      splitAtGaps(points)
        .flatMap((piece) => splitAtAntimeridian(piece))
        .map((segment) => svg('path', { class: cls, d: mapPath(segment) }))
    this.track.replaceChildren(...lines(past, 'track-past'), ...lines(future, 'track-future'))

    const marks: SVGElement[] = []
    /** Boxes the satellite's label must not cover (the Sun and the observer marks). */
    const taken: Box[] = []
    const sun = subsolarPoint(state.instant)
    const s = mapXY(sun.latitude, sun.longitude)
    const sunMark = svg('g', { class: 'sun-mark', transform: `translate(${s.x.toFixed(1)} ${s.y.toFixed(1)}) scale(${u.toFixed(3)})` })
    sunMark.append(svg('circle', { r: 5 }), svg('path', { d: 'M0-10v3M0 7v3M-10 0h3M7 0h3M-7-7l2 2M5 5l2 2M-7 7l2-2M5-5l2-2' }))
    marks.push(sunMark)
    taken.push(...copies({ x1: s.x - 11 * u, y1: s.y - 11 * u, x2: s.x + 11 * u, y2: s.y + 11 * u }))
    if (state.observer) {
      const o = mapXY(state.observer.latitude, state.observer.longitude)
      const observerMark = svg('g', { transform: `translate(${o.x.toFixed(1)} ${o.y.toFixed(1)}) scale(${u.toFixed(3)})` })
      observerMark.append(svg('path', { class: 'observer-mark', d: 'M0-7 7 5H-7z' }))
      marks.push(observerMark)
      taken.push(...copies({ x1: o.x - 8 * u, y1: o.y - 8 * u, x2: o.x + 8 * u, y2: o.y + 6 * u }))
    }
    if (state.position && p) {
      const satMark = svg('g', {
        class: 'sat-mark',
        'data-norad': state.position.noradId,
        transform: `translate(${p.x.toFixed(1)} ${p.y.toFixed(1)}) scale(${u.toFixed(3)})`,
      })
      const label = placeLabel(p, state.name.length * CHAR_PX, { x1: left, y1: 0, x2: left + MAP_WIDTH, y2: MAP_HEIGHT }, taken, u)
      satMark.append(
        svg('circle', { r: 8 }),
        svg('path', { d: 'M-13 0h-5M13 0h5M0-13v-5M0 13v5' }),
        svg('text', { x: label.x, y: label.y, 'text-anchor': label.anchor }, state.name),
      )
      marks.push(satMark)
    }
    this.marks.replaceChildren(...marks)
  }
}

/** A box and its copies one world to each side (the map is drawn three times). */
function copies(box: Box): Box[] {
  return [-MAP_WIDTH, 0, MAP_WIDTH].map((dx) => ({ x1: box.x1 + dx, y1: box.y1, x2: box.x2 + dx, y2: box.y2 }))
}

/**
 * Where the satellite's label goes (offsets in CSS pixels from its mark, and the
 * text anchor): the first of above right, above left, below right, below left
 * that lies inside the visible map and covers neither the Sun nor the observer;
 * else the first inside the map.
 */
export function placeLabel(p: { x: number; y: number }, textPx: number, view: Box, taken: readonly Box[], u: number): { x: number; y: number; anchor: 'start' | 'end' } {
  const candidates = [
    { x: 14, y: -12, anchor: 'start' as const },
    { x: -14, y: -12, anchor: 'end' as const },
    { x: 14, y: 24, anchor: 'start' as const },
    { x: -14, y: 24, anchor: 'end' as const },
  ]
  const boxOf = (c: (typeof candidates)[number]): Box => {
    const x1 = c.anchor === 'start' ? p.x + c.x * u : p.x + c.x * u - textPx * u
    const baseline = p.y + c.y * u
    return { x1, y1: baseline - LABEL_PX * u, x2: x1 + textPx * u, y2: baseline + 4 * u }
  }
  const inside = (b: Box) => b.x1 >= view.x1 && b.x2 <= view.x2 && b.y1 >= view.y1 && b.y2 <= view.y2
  const fits = candidates.filter((c) => inside(boxOf(c)))
  return fits.find((c) => !taken.some((t) => overlaps(boxOf(c), t))) ?? fits[0] ?? candidates[0]!
}

/** One line for the map's caption. */
export function mapSummary(name: string, position: Geoposition | null, instant: Date, trackNote: string, refusal = ''): string {
  if (!position) return `${name}: no position at ${formatTime(instant.toISOString())}${refusal ? `: ${refusal.replace(/^satellite \d+ has no valid position at \S+: /, '')}` : ''}.`
  const lat = `${Math.abs(position.latitude).toFixed(1)}°${position.latitude >= 0 ? 'N' : 'S'}`
  const lon = `${Math.abs(position.longitude).toFixed(1)}°${position.longitude >= 0 ? 'E' : 'W'}`
  return `${name} (${position.noradId}) over ${lat} ${lon}, ${Math.round(position.altitude).toLocaleString('en')} km up, at ${formatTime(position.datetime)} (elements ${formatElementAge(position.elementAgeDays)}).${trackNote}`
}
