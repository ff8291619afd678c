/**
 * The fast path behind /nearby: position tables on a fixed time grid, shared by
 * every request, and cubic Hermite interpolation between the two tables around
 * the requested instant. A request costs one multiply-add pass over flat arrays,
 * through the satellites its visibility cone can reach (declination cells per
 * radius band), plus exact look angles for the satellites it returns, instead
 * of SGP4 for the whole catalogue. At a grid instant the answer is SGP4's own; between grid
 * instants the interpolation error is far below a metre (checked against the
 * plain loop in the tests).
 */
import type { Catalog } from '../catalog/catalog.ts'
import { byElevation } from './by-elevation.ts'
import { lookAnglesFrom } from './look-angles-fast.ts'
import { type NearbyEntry, type NearbyQuery, type NearbyResult, NearbySelection, type SatelliteFix } from './selection.ts'
import { eciToGeodeticFast, geodeticHeightKm } from '../orbit/geodetic-fast.ts'
import { positionAt, type SatelliteState, siderealTimeRad, type Vector3 } from '../orbit/position.ts'
import {
  emptyTable,
  fillTable,
  hermiteWeights,
  interpolateState,
  isComplete,
  POSITION,
  type PositionTable,
  roughness,
} from './position-table.ts'
import { sweepDayWindows, windowCandidates } from './day-windows.ts'
import { skyConditions, toGeodeticRad } from '../orbit/sky.ts'
import { sunlightTest } from '../orbit/sunlight-test.ts'
import { type Band, BAND_SLACK_DEG, bandsOf, type Scan, scanBands } from './declination-bands.ts'

/** Spacing of the position tables. Hermite error grows as step⁴: 10 s keeps it at millimetres for LEO. */
export const TABLE_STEP_MS = 10_000
/**
 * Above this chord-velocity mismatch (km/s) a satellite's path is checked at
 * CHECK_POINTS (fractions of the interval); if interpolation misses SGP4 at any
 * of them by CHECK_TOLERANCE_KM or more, the satellite is propagated exactly by
 * every request that might see it above the threshold.
 */
const MAX_ROUGHNESS_KM_S = 1e-3
const CHECK_POINTS = [0.15, 0.35, 0.5, 0.65, 0.85] as const
const CHECK_TOLERANCE_KM = 0.0005
/** Spacing of the search for a position inside an interval whose ends have none. */
const FLICKER_STEP_MS = 500
/** A rough path may stray between check points by this factor of what they showed, plus this slack. */
const ROUGH_SAFETY = 10
const ROUGH_SLACK_KM = 1
const RAD_TO_DEG = 180 / Math.PI
/**
 * An interpolated row whose elevation (or azimuth, in a window) is within the
 * angle this distance subtends of the threshold (or a window bound) is
 * propagated exactly, so the answer lists the same satellites as SGP4 would:
 * 20× the interpolation error a smooth path may have (CHECK_TOLERANCE_KM).
 */
const EDGE_KM = 0.01
/** The scan reaches this far below the threshold, for rows the exact check may keep (EDGE_KM at 10 km of range). */
const SCAN_SLACK_DEG = 0.06

export interface NearbyEngineOptions {
  /** Tables kept per catalogue (oldest dropped first). */
  maxTables?: number
  /**
   * Runs a piece of work later, off the current request, with a function that
   * says when the piece's time is up (the service gives src/io/schedule.ts `soon`).
   */
  defer: (piece: (timeUp: () => boolean) => void) => void
  /**
   * The first request for an interval whose tables are not ready is answered
   * without tables: SGP4 only for the satellites that can be in the
   * observer's sky at the instant (day-windows.ts), where the tables
   * would cost two propagations of the catalogue and the classification; a
   * second request for the interval builds them. So scattered one-off `time`
   * values cost a fraction of the plain loop.
   */
  oneOffsWithoutTables?: boolean
}

/** Intervals remembered as asked for once, per catalogue (the oldest forgotten first). */
const MAX_ASKED_ONCE = 256

/**
 * Satellite `i`'s speed (km/s) between two tables: the two ends' speeds blended
 * with the velocity weights. Blending the velocity vectors instead shortens
 * them by the turn between the ends (~0.45 km/h in LEO); blending the speeds
 * stays within ~0.03 km/h of SGP4 (a median of 0.0003) for interpolated paths.
 */
function interpolatedSpeedKmS(a: PositionTable, b: PositionTable, i: number, w: Float64Array): number {
  const speed = (t: PositionTable) => {
    const v = t.velocityKmS
    const j = 3 * i
    return Math.sqrt(v[j]! * v[j]! + v[j + 1]! * v[j + 1]! + v[j + 2]! * v[j + 2]!)
  }
  return w[5]! * speed(a) + w[7]! * speed(b)
}

/** A catalogue's entry in a per-catalogue map, made on first use. */
function ofCatalog<T>(maps: WeakMap<Catalog, T>, catalog: Catalog, make: () => T): T {
  let value = maps.get(catalog)
  if (value === undefined) {
    value = make()
    maps.set(catalog, value)
  }
  return value
}

/** The angle between two azimuths, degrees in [0, 180]. */
function angleBetween(aDeg: number, bDeg: number): number {
  const d = Math.abs(aDeg - bDeg) % 360
  return d > 180 ? 360 - d : d
}

interface Interval {
  a: PositionTable
  b: PositionTable
  /** The interpolated satellites. */
  bands: Band[]
  /** Satellites propagated exactly at the requested instant. */
  exact: Int32Array
  /**
   * Per entry of `exact`: how far (km) interpolation missed SGP4 at the check
   * points, or Infinity (no position at one end or at a check point). A request
   * skips the exact propagation when the interpolated position is below the
   * threshold by far more than this.
   */
  deviationKm: Float64Array
}

export class NearbyEngine {
  private readonly tables = new WeakMap<Catalog, Map<number, PositionTable>>()
  private readonly intervals = new WeakMap<Catalog, Map<number, Interval>>()
  private readonly gridIntervals = new WeakMap<Catalog, Map<number, Interval>>()
  private indexBuffer = new Int32Array(0)
  private readonly maxTables: number
  private readonly defer: NearbyEngineOptions['defer']
  /** Tables a chain of deferred pieces is filling. */
  private readonly prefetching = new WeakSet<PositionTable>()

  private readonly askedOnce = new WeakMap<Catalog, Set<number>>()
  private readonly oneOffsWithoutTables: boolean
  /** Tables and intervals used since the last sweep (see `sweep`). */
  private used = new WeakSet<object>()

  constructor({ maxTables = 4, defer, oneOffsWithoutTables = true }: NearbyEngineOptions) {
    this.maxTables = maxTables
    this.defer = defer
    this.oneOffsWithoutTables = oneOffsWithoutTables
  }

  /** Whether the tables an instant needs are filled (the interval's two, or the one at a grid instant). */
  private ready(catalog: Catalog, gridMs: number, onGrid: boolean): boolean {
    const tables = this.tables.get(catalog)
    const complete = (ms: number) => {
      const table = tables?.get(ms)
      return table !== undefined && isComplete(catalog, table)
    }
    return complete(gridMs) && (onGrid || complete(gridMs + TABLE_STEP_MS))
  }

  /** True the first time an interval is asked for (remembering it), false after. */
  private firstAsk(catalog: Catalog, gridMs: number): boolean {
    const asked = ofCatalog(this.askedOnce, catalog, () => new Set())
    if (asked.has(gridMs)) return false
    if (asked.size >= MAX_ASKED_ONCE) asked.delete(asked.values().next().value!)
    asked.add(gridMs)
    return true
  }

  /** The table at grid instant `gridMs`, filled completely (synchronously if it has to be). */
  table(catalog: Catalog, gridMs: number): PositionTable {
    const table = this.entry(catalog, gridMs)
    if (!isComplete(catalog, table)) fillTable(catalog, table)
    return table
  }

  /** Starts filling the table at `gridMs` in pieces (each until its time is up), so a later request finds it ready. */
  prefetch(catalog: Catalog, gridMs: number): void {
    const table = this.entry(catalog, gridMs)
    // Every request at "now" asks for the next table: one chain of pieces fills it, however many ask.
    if (isComplete(catalog, table) || this.prefetching.has(table)) return
    this.prefetching.add(table)
    const step = (timeUp: () => boolean) => {
      if (!isComplete(catalog, table)) fillTable(catalog, table, catalog.size, timeUp)
      if (isComplete(catalog, table)) this.prefetching.delete(table)
      else this.defer(step)
    }
    this.defer(step)
  }

  /** The grid instant at or before `instantMs`. */
  static gridBefore(instantMs: number): number {
    return Math.floor(instantMs / TABLE_STEP_MS) * TABLE_STEP_MS
  }

  /**
   * The two tables around a grid interval and how to treat each satellite in
   * it: interpolate (a position at both ends and a smooth path), propagate
   * exactly (a position at one end only, a path too fast to interpolate, or
   * no position at either end but one found inside the interval), or skip (no
   * position anywhere the interval was looked at).
   */
  private interval(catalog: Catalog, gridMs: number): Interval {
    const a = this.table(catalog, gridMs)
    const b = this.table(catalog, gridMs + TABLE_STEP_MS)
    return this.recent(this.intervals, catalog, gridMs, () => this.classify(catalog, a, b), (v) => v.a === a && v.b === b)
  }

  private classify(catalog: Catalog, a: PositionTable, b: PositionTable): Interval {
    const smooth = new Uint8Array(catalog.size)
    const exact: number[] = []
    const deviationKm: number[] = []
    for (let i = 0; i < catalog.size; i++) {
      const sa = a.status[i]
      const sb = b.status[i]
      if (sa === POSITION && sb === POSITION) {
        const deviation = roughness(a, b, i) < MAX_ROUGHNESS_KM_S ? 0 : this.checkPointDeviation(catalog, a, b, i)
        if (deviation < CHECK_TOLERANCE_KM) smooth[i] = 1
        else {
          exact.push(i)
          deviationKm.push(deviation)
        }
      } else if (sa === POSITION || sb === POSITION || this.hasPositionWithin(catalog, a, b, i)) {
        // Gains or loses its position within the interval (decayed elements can flicker for seconds).
        exact.push(i)
        deviationKm.push(Number.POSITIVE_INFINITY)
      }
    }
    return { a, b, bands: bandsOf(a, b, smooth), exact: Int32Array.from(exact), deviationKm: Float64Array.from(deviationKm) }
  }

  find(catalog: Catalog, query: NearbyQuery): NearbyResult {
    const t = query.instant.getTime()
    const gridMs = NearbyEngine.gridBefore(t)
    const onGrid = t === gridMs
    const oneOff = this.oneOffsWithoutTables && !this.ready(catalog, gridMs, onGrid) && this.firstAsk(catalog, gridMs)
    const gmst = siderealTimeRad(query.instant)
    const sky = skyConditions(query.observer, query.instant, gmst)
    const selection = new NearbySelection(catalog, query, sky, gmst, sunlightTest(sky.sunAu))
    if (selection.nothingToList) return { sky, entries: [] }

    const site = toGeodeticRad(query.observer)
    const { cosG, sinG, observerKm: o } = selection
    const look = lookAnglesFrom(query.observer)
    // The local vertical (geodetic normal): elevation is the angle above the plane normal to it.
    const ux = Math.cos(site.latitude) * Math.cos(site.longitude)
    const uy = Math.cos(site.latitude) * Math.sin(site.longitude)
    const uz = Math.sin(site.latitude)
    const scanMinDeg = Math.max(0, query.minElevationDeg - SCAN_SLACK_DEG)
    const sinMin = Math.sin(scanMinDeg / RAD_TO_DEG)
    const sinMin2 = sinMin * sinMin
    const windowed = !(query.azimuthFromDeg === 0 && query.azimuthToDeg === 360)
    const { validity } = catalog
    const entries: NearbyEntry[] = []
    // The observer's geocentric radius and latitude; its geodetic vertical is off the geocentric one by
    // `tiltDeg`, so elevation e above the geodetic horizon is at least e - tiltDeg above the geocentric one.
    const rhoKm = Math.sqrt(o.x * o.x + o.y * o.y + o.z * o.z)
    const geocentricLatDeg = Math.asin(o.z / rhoKm) * RAD_TO_DEG
    const tiltDeg = Math.abs(query.observer.latitudeDeg - geocentricLatDeg)
    const minGeocentricDeg = scanMinDeg - tiltDeg - BAND_SLACK_DEG

    /** Whether interpolated look angles lie within EDGE_KM of deciding otherwise (threshold or window bound). */
    const nearAnEdge = (angles: { elevationDeg: number; azimuthDeg: number; rangeKm: number }): boolean => {
      const edgeDeg = (EDGE_KM / angles.rangeKm) * RAD_TO_DEG
      if (Math.abs(angles.elevationDeg - query.minElevationDeg) < edgeDeg) return true
      if (!windowed) return false
      // An azimuth error is the position error over the horizontal distance.
      const azimuthEdgeDeg = edgeDeg / Math.max(1e-9, Math.cos(angles.elevationDeg / RAD_TO_DEG))
      return angleBetween(angles.azimuthDeg, query.azimuthFromDeg) < azimuthEdgeDeg || angleBetween(angles.azimuthDeg, query.azimuthToDeg) < azimuthEdgeDeg
    }

    /**
     * One satellite near or above the threshold, given its TEME position, its
     * speed (km/h) and its topocentric vector (Earth-fixed, km): the
     * selection's rule, after two checks an interpolated state (`exact` null)
     * needs: within EDGE_KM of deciding otherwise it is replaced by SGP4's, and
     * its height must be plausible (positionAt's rule, which the exact path has
     * applied), since the path between the tables may leave the range. The
     * age and decay rules need no check: an interpolated satellite has a
     * position in both tables, so both ends of the interval are inside its
     * age window (one span of time) and before any decay (which lasts), and
     * so is every instant between them. An exact state (positionAt's) brings
     * its height, and its latitude and longitude when the query asks for them.
     */
    const consider = (i: number, eciKm: Vector3, velocityKmS: Vector3, speedKmH: number, dx: number, dy: number, dz: number, exact: SatelliteState | null): void => {
      const angles = look(dx, dy, dz)
      if (exact === null && nearAnEdge(angles)) return considerExactly(i)
      if (!selection.inSight(angles)) return
      let fix: SatelliteFix
      if (exact !== null) {
        fix = query.geoposition
          ? { eciKm, velocityKmS, altitudeKm: exact.altitudeKm, speedKmH, latitudeDeg: exact.latitudeDeg, longitudeDeg: exact.longitudeDeg }
          : { eciKm, velocityKmS, altitudeKm: exact.altitudeKm, speedKmH, latitudeDeg: undefined, longitudeDeg: undefined }
      } else {
        const altitudeKm = geodeticHeightKm(eciKm)
        if (!validity.plausibleHeight(i, altitudeKm)) return
        const geo = query.geoposition ? eciToGeodeticFast(eciKm, gmst) : undefined
        fix = { eciKm, velocityKmS, altitudeKm, speedKmH, latitudeDeg: geo && geo.latitude * RAD_TO_DEG, longitudeDeg: geo && geo.longitude * RAD_TO_DEG }
      }
      const entry = selection.entry(i, fix, angles)
      if (entry) entries.push(entry)
    }

    /** SGP4 for satellite `i` at the requested instant (positionAt: its latitude and longitude only when asked for), then the full treatment. */
    const considerExactly = (i: number): void => {
      const result = positionAt(catalog, i, query.instant, gmst, undefined, query.geoposition === true)
      if (!result.ok) return
      const state = result.state
      const p = state.eciKm
      const dx = p.x * cosG + p.y * sinG - o.x
      const dy = -p.x * sinG + p.y * cosG - o.y
      consider(i, p, state.velocityKmS, state.speedKmH, dx, dy, p.z - o.z, state)
    }

    if (oneOff) {
      // The observer and its vertical in TEME (the scan's rotation, inverted), as unit vectors.
      const observer = {
        x: (o.x * cosG - o.y * sinG) / rhoKm,
        y: (o.x * sinG + o.y * cosG) / rhoKm,
        z: o.z / rhoKm,
        radiusKm: rhoKm,
        minElevation: minGeocentricDeg / RAD_TO_DEG,
        ux: ux * cosG - uy * sinG,
        uy: ux * sinG + uy * cosG,
        uz,
        minElevationDeg: scanMinDeg,
      }
      const candidates = windowCandidates(catalog, t, observer, this.scratch(catalog.size))
      for (let k = 0; k < candidates.length; k++) considerExactly(candidates[k]!)
      return { sky, entries: byElevation(entries) }
    }

    // On the grid the table holds SGP4's own answer; between grid instants, Hermite weights.
    const { a, b, bands, exact, deviationKm } = onGrid ? this.onGrid(catalog, gridMs) : this.interval(catalog, gridMs)
    const weights = hermiteWeights((t - gridMs) / TABLE_STEP_MS, TABLE_STEP_MS / 1000)
    const scan: Scan = { weights, cosG, sinG, ox: o.x, oy: o.y, oz: o.z, ux, uy, uz, sinMin2 }
    const found = this.scratch(catalog.size)
    const count = scanBands(bands, a, b, scan, { rhoKm, geocentricLatDeg, minGeocentricDeg }, found)
    const s = new Float64Array(6)
    // One position and one velocity for every row: consider reads them and keeps neither (an entry holds numbers).
    const p = { x: 0, y: 0, z: 0 }
    const v = { x: 0, y: 0, z: 0 }
    for (let k = 0; k < count; k++) {
      const i = found[k]!
      interpolateState(a, b, i, weights, s)
      p.x = s[0]!
      p.y = s[1]!
      p.z = s[2]!
      // The velocity blended linearly (see hermiteWeights): within ~0.1 m/s of SGP4's in LEO, which is all the range rate needs.
      v.x = s[3]!
      v.y = s[4]!
      v.z = s[5]!
      const dx = p.x * cosG + p.y * sinG - o.x
      const dy = -p.x * sinG + p.y * cosG - o.y
      consider(i, p, v, interpolatedSpeedKmS(a, b, i, weights) * 3600, dx, dy, p.z - o.z, null)
    }
    for (let k = 0; k < exact.length; k++) {
      const i = exact[k]!
      if (Number.isFinite(deviationKm[k]!)) {
        // A rough but bounded path: skip SGP4 when the interpolated point is far below the threshold.
        interpolateState(a, b, i, weights, s)
        const dx = s[0]! * cosG + s[1]! * sinG - o.x
        const dy = -s[0]! * sinG + s[1]! * cosG - o.y
        const dz = s[2]! - o.z
        const rangeKm = Math.sqrt(dx * dx + dy * dy + dz * dz)
        const elevationDeg = Math.asin((ux * dx + uy * dy + uz * dz) / rangeKm) * RAD_TO_DEG
        const marginDeg = Math.asin(Math.min(1, (ROUGH_SAFETY * deviationKm[k]! + ROUGH_SLACK_KM) / rangeKm)) * RAD_TO_DEG
        if (elevationDeg + marginDeg < query.minElevationDeg) continue
      }
      considerExactly(i)
    }
    return { sky, entries: byElevation(entries) }
  }

  /**
   * How far interpolation misses a rough path (deep-space integrator kinks,
   * fast but regular motion, SGP4's Kepler solver struggling with decaying
   * elements): the largest distance (km) to SGP4 at CHECK_POINTS inside the
   * interval, or Infinity when SGP4 has no position at one of them.
   */
  private checkPointDeviation(catalog: Catalog, a: PositionTable, b: PositionTable, i: number): number {
    const stepS = (b.instantMs - a.instantMs) / 1000
    const out = new Float64Array(6)
    let worst = 0
    for (const u of CHECK_POINTS) {
      const at = new Date(a.instantMs + u * stepS * 1000)
      const exact = positionAt(catalog, i, at, siderealTimeRad(at), undefined, false)
      if (!exact.ok) return Number.POSITIVE_INFINITY
      interpolateState(a, b, i, hermiteWeights(u, stepS), out)
      const p = exact.state.eciKm
      worst = Math.max(worst, Math.hypot(out[0]! - p.x, out[1]! - p.y, out[2]! - p.z))
    }
    return worst
  }

  /**
   * Whether a satellite without a position at either end has one somewhere in
   * between, looked for every FLICKER_STEP_MS: SGP4 on long-decayed elements
   * can wander in and out of a valid position within seconds.
   */
  private hasPositionWithin(catalog: Catalog, a: PositionTable, b: PositionTable, i: number): boolean {
    for (let t = a.instantMs + FLICKER_STEP_MS; t < b.instantMs; t += FLICKER_STEP_MS) {
      const at = new Date(t)
      if (positionAt(catalog, i, at, siderealTimeRad(at), undefined, false).ok) return true
    }
    return false
  }

  /** A reusable index buffer (requests run one at a time on the event loop). */
  private scratch(size: number): Int32Array {
    if (this.indexBuffer.length < size) this.indexBuffer = new Int32Array(size)
    return this.indexBuffer
  }

  /** A grid instant as a degenerate interval: every satellite with a position is read from the table as is. */
  private onGrid(catalog: Catalog, gridMs: number): Interval {
    const a = this.table(catalog, gridMs)
    const make = (): Interval => {
      const smooth = new Uint8Array(catalog.size)
      for (let i = 0; i < catalog.size; i++) smooth[i] = a.status[i] === POSITION ? 1 : 0
      return { a, b: a, bands: bandsOf(a, a, smooth), exact: new Int32Array(0), deviationKm: new Float64Array(0) }
    }
    return this.recent(this.gridIntervals, catalog, gridMs, make, (v) => v.a === a)
  }

  private entry(catalog: Catalog, gridMs: number): PositionTable {
    return this.recent(this.tables, catalog, gridMs, () => emptyTable(catalog, gridMs))
  }

  /**
   * Get-or-make in a per-catalogue map that keeps the `maxTables` most recently
   * used entries; an entry `fresh` rejects (built from tables since replaced) is made again.
   */
  private recent<V>(maps: WeakMap<Catalog, Map<number, V>>, catalog: Catalog, key: number, make: () => V, fresh: (v: V) => boolean = () => true): V {
    const byKey = ofCatalog(maps, catalog, () => new Map())
    let value = byKey.get(key)
    if (value !== undefined && fresh(value)) {
      byKey.delete(key) // re-inserted below: most recently used last
    } else {
      byKey.delete(key)
      value = make()
      while (byKey.size >= this.maxTables) byKey.delete(byKey.keys().next().value!)
    }
    byKey.set(key, value)
    this.used.add(value as object)
    return value
  }

  /**
   * Lets go of what `catalog`'s requests stopped using: the position tables,
   * intervals and day windows that no request or prefetch used since the last
   * sweep. The engine keeps no clock: whoever runs it says how often (the
   * service: src/io/idle-sweep.ts), and a request needing one again makes it
   * again (a table ~10 ms, a window ~30 ms).
   */
  sweep(catalog: Catalog): void {
    for (const maps of [this.tables, this.intervals, this.gridIntervals]) {
      const byKey = maps.get(catalog)
      if (!byKey) continue
      for (const [key, value] of byKey) if (!this.used.has(value as object)) byKey.delete(key)
    }
    this.used = new WeakSet()
    sweepDayWindows(catalog)
  }
}
