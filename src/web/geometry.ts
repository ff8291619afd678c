/** Pure geometry for the page: the sky plot's projection, compass points, the Sun and the day/night line on the map. */

const RAD = Math.PI / 180

/** Radius of the sky plot's horizon, in SVG units (the plot is centred on 0,0). */
export const SKY_RADIUS = 100

/**
 * Azimuth/elevation → sky plot coordinates: north up, east right (as on a
 * map or a compass held flat), the horizon at the rim, the zenith in the centre,
 * distance from the centre proportional to the zenith angle.
 */
export function skyXY(azimuthDeg: number, elevationDeg: number, radius = SKY_RADIUS): { x: number; y: number } {
  const r = (radius * (90 - Math.max(0, Math.min(90, elevationDeg)))) / 90
  return { x: r * Math.sin(azimuthDeg * RAD), y: -r * Math.cos(azimuthDeg * RAD) }
}

const POINTS = ['N', 'NNE', 'NE', 'ENE', 'E', 'ESE', 'SE', 'SSE', 'S', 'SSW', 'SW', 'WSW', 'W', 'WNW', 'NW', 'NNW'] as const

/** The nearest of the 16 compass points (`NNE`) for an azimuth in degrees. */
export function compassPoint(azimuthDeg: number): string {
  return POINTS[Math.round((((azimuthDeg % 360) + 360) % 360) / 22.5) % 16]!
}

/** Map frame: equirectangular, 4 SVG units per degree (the build draws the world outline in the same frame). */
export const MAP_UNITS_PER_DEGREE = 4
export const MAP_WIDTH = 360 * MAP_UNITS_PER_DEGREE
export const MAP_HEIGHT = 180 * MAP_UNITS_PER_DEGREE

export function mapXY(latitudeDeg: number, longitudeDeg: number): { x: number; y: number } {
  return { x: (longitudeDeg + 180) * MAP_UNITS_PER_DEGREE, y: (90 - latitudeDeg) * MAP_UNITS_PER_DEGREE }
}

const wrap180 = (deg: number) => ((((deg + 180) % 360) + 360) % 360) - 180

/**
 * The subsolar point (where the Sun is at the zenith) at `instant`, from the
 * Astronomical Almanac's low-precision solar coordinates (about 0.01°, far
 * below a pixel of the map).
 */
export function subsolarPoint(instant: Date): { latitude: number; longitude: number } {
  const n = instant.getTime() / 86_400_000 + 2_440_587.5 - 2_451_545.0 // days from J2000.0
  const meanLongitude = 280.46 + 0.9856474 * n
  const meanAnomaly = (357.528 + 0.9856003 * n) * RAD
  const eclipticLongitude = (meanLongitude + 1.915 * Math.sin(meanAnomaly) + 0.02 * Math.sin(2 * meanAnomaly)) * RAD
  const obliquity = (23.439 - 0.0000004 * n) * RAD
  const declination = Math.asin(Math.sin(obliquity) * Math.sin(eclipticLongitude))
  const rightAscensionDeg = Math.atan2(Math.cos(obliquity) * Math.sin(eclipticLongitude), Math.cos(eclipticLongitude)) / RAD
  const siderealDeg = 280.46061837 + 360.98564736629 * n // Greenwich mean sidereal time
  return { latitude: declination / RAD, longitude: wrap180(rightAscensionDeg - siderealDeg) }
}

/**
 * The night side as one closed polygon of [longitude, latitude] points: the
 * line where the Sun's centre is on the horizon, closed over the pole in
 * darkness. Near an equinox the line approaches a meridian pair and the polygon
 * stays valid because the declination is kept off zero.
 */
export function nightPolygon(instant: Date, stepDeg = 2): [number, number][] {
  const sun = subsolarPoint(instant)
  let declination = sun.latitude
  if (Math.abs(declination) < 0.01) declination = declination < 0 ? -0.01 : 0.01
  const tanDec = Math.tan(declination * RAD)
  const line: [number, number][] = []
  for (let lon = -180; lon <= 180; lon += stepDeg) {
    const hourAngle = (lon - sun.longitude) * RAD
    line.push([lon, Math.atan(-Math.cos(hourAngle) / tanDec) / RAD])
  }
  // Northern summer (declination > 0): the dark pole is the south one.
  const darkPole = declination > 0 ? -90 : 90
  return [...line, [180, darkPole], [-180, darkPole]]
}

/**
 * A ground track cut where it crosses the antimeridian, each crossing
 * interpolated to the map's edge so no line runs across the whole map.
 */
export function splitAtAntimeridian(points: readonly { latitude: number; longitude: number }[]): [number, number][][] {
  const segments: [number, number][][] = []
  let current: [number, number][] = []
  let previous: { latitude: number; longitude: number } | undefined
  for (const p of points) {
    if (previous && Math.abs(p.longitude - previous.longitude) > 180) {
      const east = previous.longitude > 0 // crossing eastwards past +180
      const edge = east ? 180 : -180
      const unwrapped = p.longitude + (east ? 360 : -360)
      const f = (edge - previous.longitude) / (unwrapped - previous.longitude)
      const lat = previous.latitude + f * (p.latitude - previous.latitude)
      current.push([edge, lat])
      segments.push(current)
      current = [[-edge, lat]]
    }
    current.push([p.longitude, p.latitude])
    previous = p
  }
  if (current.length > 0) segments.push(current)
  return segments
}

/**
 * A track cut where instants are missing (the API leaves out instants without
 * a valid position), so no line is drawn across a gap.
 */
export function splitAtGaps<T extends { datetime: string }>(points: readonly T[], maxGapMs = 90_000): T[][] {
  const pieces: T[][] = []
  let previousMs = Number.NaN
  for (const p of points) {
    const ms = Date.parse(p.datetime)
    if (pieces.length === 0 || !(ms - previousMs <= maxGapMs)) pieces.push([])
    pieces[pieces.length - 1]!.push(p)
    previousMs = ms
  }
  return pieces
}

/** An SVG path through [longitude, latitude] points in the map frame. */
export function mapPath(points: readonly [number, number][], close = false): string {
  const d = points
    .map(([lon, lat], i) => {
      const { x, y } = mapXY(lat, lon)
      return `${i === 0 ? 'M' : 'L'}${x.toFixed(1)} ${y.toFixed(1)}`
    })
    .join('')
  return close ? `${d}Z` : d
}

/** The Earth's mean radius, km (the footprint's sphere). */
const EARTH_RADIUS_KM = 6371

/**
 * The footprint of a satellite at `altitudeKm` above the point (lat, lon): the
 * circle on the ground from which it is above the horizon (Earth-central angle
 * acos(R / (R + h)), a sphere), as one closed ring of [longitude, latitude]
 * points with continuous longitudes (they may pass ±180: the map draws the
 * world three times side by side). A circle around a pole is closed along it.
 */
export function footprint(latitudeDeg: number, longitudeDeg: number, altitudeKm: number, steps = 90): [number, number][] {
  const reach = Math.acos(EARTH_RADIUS_KM / (EARTH_RADIUS_KM + Math.max(0, altitudeKm)))
  const lat = latitudeDeg * RAD
  const ring: [number, number][] = []
  let previous = Number.NaN
  for (let k = 0; k <= steps; k++) {
    const bearing = (2 * Math.PI * k) / steps
    const lat2 = Math.asin(Math.sin(lat) * Math.cos(reach) + Math.cos(lat) * Math.sin(reach) * Math.cos(bearing))
    let lon2 = longitudeDeg + Math.atan2(Math.sin(bearing) * Math.sin(reach) * Math.cos(lat), Math.cos(reach) - Math.sin(lat) * Math.sin(lat2)) / RAD
    if (!Number.isNaN(previous)) {
      while (lon2 - previous > 180) lon2 -= 360
      while (lon2 - previous < -180) lon2 += 360
    }
    ring.push([lon2, lat2 / RAD])
    previous = lon2
  }
  // Around a pole the ring's longitudes run once around the world: close it along that pole.
  const first = ring[0]!
  const last = ring[ring.length - 1]!
  if (Math.abs(last[0] - first[0]) > 180) {
    const pole = latitudeDeg >= 0 ? 90 : -90
    ring.push([last[0], pole], [first[0], pole])
  }
  return ring
}

/** The Sun's altitude (degrees, geometric) at an observer and instant, from the subsolar point. */
export function sunAltitudeDeg(latitudeDeg: number, longitudeDeg: number, instant: Date): number {
  const sun = subsolarPoint(instant)
  const cosine =
    Math.sin(latitudeDeg * RAD) * Math.sin(sun.latitude * RAD) + Math.cos(latitudeDeg * RAD) * Math.cos(sun.latitude * RAD) * Math.cos((longitudeDeg - sun.longitude) * RAD)
  return Math.asin(Math.max(-1, Math.min(1, cosine))) / RAD
}

/**
 * When "tonight" starts for the Tonight view: `instant` itself when the Sun is
 * already at or below -6° there, else the next moment it gets there (to the
 * minute) within a day; null when it does not (the midnight sun, or a polar
 * summer's twilight): no night, so nothing can be visible to the naked eye.
 */
export function nightStart(latitudeDeg: number, longitudeDeg: number, instant: Date): Date | null {
  if (sunAltitudeDeg(latitudeDeg, longitudeDeg, instant) <= -6) return instant
  const step = 5 * 60_000
  for (let t = instant.getTime() + step; t <= instant.getTime() + 86_400_000; t += step) {
    if (sunAltitudeDeg(latitudeDeg, longitudeDeg, new Date(t)) <= -6) {
      // To the minute: the first whole minute in the last step that is dark.
      let minute = Math.floor((t - step) / 60_000) * 60_000 + 60_000
      while (minute < t && sunAltitudeDeg(latitudeDeg, longitudeDeg, new Date(minute)) > -6) minute += 60_000
      return new Date(minute)
    }
  }
  return null
}
