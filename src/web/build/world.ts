/**
 * The world map's outline, drawn once at build time: Natural Earth 1:110m land
 * and country borders (world-atlas, TopoJSON) as one small SVG in an
 * equirectangular frame of 4 units per degree (x = longitude + 180, y = 90 -
 * latitude, both × 4), the frame the page's map uses.
 */
import { feature, mesh } from 'topojson-client'

const atlasFile = (name: string) => Bun.file(Bun.resolveSync(`world-atlas/${name}`, import.meta.dir))

/** SVG units per degree; 0.25° is finer than the 1:110m data needs at any screen size. */
export const UNITS_PER_DEGREE = 4
export const WIDTH = 360 * UNITS_PER_DEGREE
export const HEIGHT = 180 * UNITS_PER_DEGREE

type Ring = readonly (readonly number[])[]

/**
 * A ring or line with longitudes made continuous across the antimeridian
 * (178, -179 → 178, 181), plus the copies shifted by 360° that the map needs
 * where it runs past ±180: the SVG clips what falls outside its frame. A ring
 * that goes once around a pole (Antarctica) is closed along that pole.
 */
function unwrapped(ring: Ring, closed: boolean): [number, number][][] {
  const points: [number, number][] = []
  let previous = Number.NaN
  for (const [lon, lat] of ring) {
    let l = lon!
    if (!Number.isNaN(previous)) {
      while (l - previous > 180) l -= 360
      while (l - previous < -180) l += 360
    }
    points.push([l, lat!])
    previous = l
  }
  const first = points[0]
  const last = points[points.length - 1]
  if (!first || !last) return []
  if (closed && Math.abs(last[0] - first[0]) > 180) {
    const pole = points.reduce((sum, p) => sum + p[1], 0) < 0 ? -90 : 90
    points.push([last[0], pole], [first[0], pole])
  }
  const lons = points.map((p) => p[0])
  const copies = [points]
  for (const shift of [-360, 360]) {
    if (Math.min(...lons) + shift < 180 && Math.max(...lons) + shift > -180) copies.push(points.map(([l, lat]) => [l + shift, lat]))
  }
  return copies
}

/** Path data with integer relative moves (`l dx dy`): about a third of the absolute form. */
function pathData(rings: readonly Ring[], closed: boolean): string {
  let d = ''
  for (const ring of rings.flatMap((r) => unwrapped(r, closed))) {
    let px = 0
    let py = 0
    ring.forEach(([lon, lat], i) => {
      const x = Math.round((lon + 180) * UNITS_PER_DEGREE)
      const y = Math.round((90 - lat) * UNITS_PER_DEGREE)
      if (i === 0) d += `M${x} ${y}`
      else if (x !== px || y !== py) d += `l${x - px} ${y - py}`.replace(/ -/g, '-')
      px = x
      py = y
    })
    if (closed) d += 'z'
  }
  return d
}

/** Land filled, borders as thin lines; colours match the page's map palette. */
export async function worldSvg(): Promise<string> {
  const topoLand: { objects: { land: unknown } } = await atlasFile('land-110m.json').json()
  const topoCountries: { objects: { countries: unknown } } = await atlasFile('countries-110m.json').json()
  const rings: Ring[] = []
  for (const { geometry } of feature(topoLand, topoLand.objects.land).features) {
    const polygons = (geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates) as Ring[][]
    for (const polygon of polygons) rings.push(...polygon)
  }
  const borders = mesh(topoCountries, topoCountries.objects.countries, (a, b) => a !== b).coordinates
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}">` +
    `<path fill="#c9cfb8" stroke="#6b7560" stroke-width="1" d="${pathData(rings, true)}"/>` +
    `<path fill="none" stroke="#8f9884" stroke-width="0.6" d="${pathData(borders, false)}"/>` +
    `</svg>`
  )
}
