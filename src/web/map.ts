/**
 * The map view: a world map (equirectangular) with one satellite now, its
 * ground track from 90 minutes back to 90 minutes ahead, the night side, the
 * point under the Sun and the observer.
 */
import type { Geoposition, Observer, TrackPoint } from './api.ts'
import { byId, formatTime, svg } from './dom.ts'
import { MAP_HEIGHT, MAP_WIDTH, mapPath, mapXY, nightPolygon, splitAtAntimeridian, splitAtGaps, subsolarPoint } from './geometry.ts'

export const TRACK_HALF_SPAN_MS = 90 * 60_000

export interface MapState {
  name: string
  position: Geoposition | null
  track: TrackPoint[]
  observer: Observer | null
  /** The instant shown: the position's, or the pinned one. */
  instant: Date
}

export class MapView {
  private readonly map = byId<SVGSVGElement>('map')
  private readonly night = byId<SVGGElement>('map-night')
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
    this.render()
  }

  private drawGraticule(): void {
    const grid = byId<SVGGElement>('map-grid')
    for (let lon = -150; lon <= 150; lon += 30) {
      const x = mapXY(0, lon).x
      grid.append(svg('line', { class: lon === 0 ? 'grid grid-main' : 'grid', x1: x, y1: 0, x2: x, y2: MAP_HEIGHT }))
    }
    for (let lat = -60; lat <= 60; lat += 30) {
      const y = mapXY(lat, 0).y
      grid.append(svg('line', { class: lat === 0 ? 'grid grid-main' : 'grid', x1: 0, y1: y, x2: MAP_WIDTH, y2: y }))
    }
  }

  private render(): void {
    const state = this.state
    const width = this.map.getBoundingClientRect().width
    if (!state || width === 0) return // hidden: drawn when shown (the resize observer fires then)
    /** SVG units per CSS pixel at the map's current size. */
    const u = MAP_WIDTH / width
    this.night.replaceChildren(svg('path', { class: 'night', d: mapPath(nightPolygon(state.instant), true) }))

    const nowMs = state.instant.getTime()
    const past = state.track.filter((p) => Date.parse(p.datetime) <= nowMs)
    const future = state.track.filter((p) => Date.parse(p.datetime) >= nowMs)
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
    const sun = subsolarPoint(state.instant)
    const s = mapXY(sun.latitude, sun.longitude)
    const sunMark = svg('g', { class: 'sun-mark', transform: `translate(${s.x.toFixed(1)} ${s.y.toFixed(1)}) scale(${u.toFixed(3)})` })
    sunMark.append(svg('circle', { r: 5 }), svg('path', { d: 'M0-10v3M0 7v3M-10 0h3M7 0h3M-7-7l2 2M5 5l2 2M-7 7l2-2M5-5l2-2' }))
    marks.push(sunMark)
    if (state.observer) {
      const o = mapXY(state.observer.latitude, state.observer.longitude)
      const observerMark = svg('g', { transform: `translate(${o.x.toFixed(1)} ${o.y.toFixed(1)}) scale(${u.toFixed(3)})` })
      observerMark.append(svg('path', { class: 'observer-mark', d: 'M0-7 7 5H-7z' }))
      marks.push(observerMark)
    }
    if (state.position) {
      const p = mapXY(state.position.latitude, state.position.longitude)
      const satMark = svg('g', {
        class: 'sat-mark',
        'data-norad': state.position.noradId,
        transform: `translate(${p.x.toFixed(1)} ${p.y.toFixed(1)}) scale(${u.toFixed(3)})`,
      })
      const labelRight = p.x < MAP_WIDTH * 0.7
      satMark.append(
        svg('circle', { r: 8 }),
        svg('path', { d: 'M-13 0h-5M13 0h5M0-13v-5M0 13v5' }),
        svg('text', { x: labelRight ? 14 : -14, y: -12, 'text-anchor': labelRight ? 'start' : 'end' }, state.name),
      )
      marks.push(satMark)
    }
    this.marks.replaceChildren(...marks)
  }
}

/** One line for the map's caption. */
export function mapSummary(name: string, position: Geoposition | null, instant: Date, trackNote: string, refusal = ''): string {
  if (!position) return `${name}: no position at ${formatTime(instant.toISOString())}${refusal ? `: ${refusal.replace(/^satellite \d+ has no valid position at \S+: /, '')}` : ''}.`
  const lat = `${Math.abs(position.latitude).toFixed(1)}°${position.latitude >= 0 ? 'N' : 'S'}`
  const lon = `${Math.abs(position.longitude).toFixed(1)}°${position.longitude >= 0 ? 'E' : 'W'}`
  return `${name} (${position.noradId}) over ${lat} ${lon}, ${Math.round(position.altitude).toLocaleString('en')} km up, at ${formatTime(position.datetime)}.${trackNote}`
}
