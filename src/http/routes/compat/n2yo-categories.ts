/**
 * N2YO's satellite categories (the `category_id` of `/above`) and how each is
 * recognised in this catalogue: by the CelesTrak group it was loaded from, or
 * by the name its members carry. Membership therefore depends on the groups
 * loaded: the embedded snapshot has stations, starlink, oneweb, geo, weather,
 * resource, science and military; load CelesTrak's `amateur` group (say) to
 * answer category 18.
 */
import type { Satellite } from '../../../domain/catalog/catalog.ts'
import { compatNumber } from './shared.ts'

export interface N2yoCategory {
  id: number
  /** As N2YO names it (`info.category`). */
  name: string
  /** CelesTrak groups whose satellites belong to it (lower case). */
  groups?: readonly string[]
  /** Names its members carry. */
  names?: RegExp
}

/** `category_id` 0, an unknown number, or not a number at all: every satellite (N2YO's `ANY`). */
export const ANY_CATEGORY: N2yoCategory = { id: 0, name: 'ANY' }

export const N2YO_CATEGORIES: readonly N2yoCategory[] = [
  { id: 1, name: 'Brightest', groups: ['visual'] },
  { id: 2, name: 'ISS', names: /^ISS \(/ },
  { id: 3, name: 'Weather', groups: ['weather'] },
  { id: 4, name: 'NOAA', groups: ['noaa'], names: /^NOAA / },
  { id: 5, name: 'GOES', groups: ['goes'], names: /^GOES / },
  { id: 6, name: 'Earth resources', groups: ['resource'] },
  { id: 7, name: 'Search & rescue', groups: ['sarsat'] },
  { id: 8, name: 'Disaster monitoring', groups: ['dmc'] },
  { id: 9, name: 'Tracking and Data Relay Satellite System', groups: ['tdrss'], names: /^TDRS / },
  { id: 10, name: 'Geostationary', groups: ['geo'] },
  { id: 11, name: 'Intelsat', groups: ['intelsat'], names: /^INTELSAT/ },
  { id: 12, name: 'Gorizont', groups: ['gorizont'], names: /^GORIZONT/ },
  { id: 13, name: 'Raduga', groups: ['raduga'], names: /^RADUGA/ },
  { id: 14, name: 'Molniya', groups: ['molniya'], names: /^MOLNIYA/ },
  { id: 15, name: 'Iridium', groups: ['iridium', 'iridium-next'], names: /^IRIDIUM/ },
  { id: 16, name: 'Orbcomm', groups: ['orbcomm'], names: /^ORBCOMM/ },
  { id: 17, name: 'Globalstar', groups: ['globalstar'], names: /^GLOBALSTAR/ },
  { id: 18, name: 'Amateur radio', groups: ['amateur'] },
  { id: 19, name: 'Experimental', groups: ['x-comm'] },
  { id: 20, name: 'Global Positioning System (GPS) Operational', groups: ['gps-ops'] },
  { id: 21, name: 'Glonass Operational', groups: ['glo-ops'] },
  { id: 22, name: 'Galileo', groups: ['galileo'] },
  { id: 23, name: 'Satellite-Based Augmentation System', groups: ['sbas'] },
  { id: 24, name: 'Navy Navigation Satellite System', groups: ['nnss'] },
  { id: 25, name: 'Russian LEO Navigation', groups: ['musson'] },
  { id: 26, name: 'Space & Earth Science', groups: ['science'] },
  { id: 27, name: 'Geodetic', groups: ['geodetic'] },
  { id: 28, name: 'Engineering', groups: ['engineering'] },
  { id: 29, name: 'Education', groups: ['education'] },
  { id: 30, name: 'Military', groups: ['military'] },
  { id: 31, name: 'Radar Calibration', groups: ['radar'] },
  { id: 32, name: 'CubeSats', groups: ['cubesat'] },
  { id: 33, name: 'XM and Sirius', names: /^(XM-|SIRIUS)/ },
  { id: 34, name: 'TV' },
  { id: 35, name: 'Beidou Navigation System', groups: ['beidou'], names: /^BEIDOU/ },
  { id: 36, name: 'Yaogan', names: /^YAOGAN/ },
  { id: 37, name: 'Westford Needles', names: /WESTFORD/ },
  { id: 38, name: 'Parus', names: /^PARUS/ },
  { id: 39, name: 'Strela', names: /^STRELA/ },
  { id: 40, name: 'Gonets', names: /^GONETS/ },
  { id: 41, name: 'Tsiklon', names: /^TSIKLON/ },
  { id: 42, name: 'Tsikada', names: /^TSIKADA/ },
  { id: 43, name: 'O3B Networks', names: /^O3B/ },
  { id: 44, name: 'Tselina', names: /^TSELINA/ },
  { id: 45, name: 'Celestis', names: /CELESTIS/ },
  { id: 46, name: 'IRNSS', names: /^IRNSS/ },
  { id: 47, name: 'QZSS', names: /^QZS/ },
  { id: 48, name: 'Flock', names: /^FLOCK/ },
  { id: 49, name: 'Lemur', names: /^LEMUR/ },
  { id: 50, name: 'Global Positioning System (GPS) Constellation', groups: ['gps-ops'], names: /^(GPS |NAVSTAR)/ },
  { id: 51, name: 'Glonass Constellation', groups: ['glo-ops'], names: /GLONASS/ },
  { id: 52, name: 'Starlink', groups: ['starlink'], names: /^STARLINK/ },
  { id: 53, name: 'OneWeb', groups: ['oneweb'], names: /^ONEWEB/ },
  { id: 54, name: 'Chinese Space Station', names: /^CSS \(/ },
  { id: 55, name: 'Qianfan', groups: ['qianfan'], names: /^QIANFAN/ },
  { id: 56, name: 'Kuiper', groups: ['kuiper'], names: /^KUIPER/ },
]

const BY_ID: ReadonlyMap<number, (typeof N2YO_CATEGORIES)[number]> = new Map(N2YO_CATEGORIES.map((c) => [c.id, c]))

/**
 * The category a `category_id` path segment names: a known id (`10`, `10.000000`),
 * else ANY, as N2YO answers it; clients send text too (n2yoasync's default is the
 * enum member itself, which arrives as `N2YOSatelliteCategory.All`).
 */
export function categoryOf(raw: string): N2yoCategory {
  const value = compatNumber(raw)
  return (value !== null && BY_ID.get(value)) || ANY_CATEGORY
}

/** Whether a satellite belongs to a category (every satellite belongs to ANY). */
export function inCategory(satellite: Satellite, category: N2yoCategory): boolean {
  if (category === ANY_CATEGORY) return true
  if (category.groups && satellite.groups.some((g) => category.groups!.includes(g.toLowerCase()))) return true
  return category.names !== undefined && category.names.test(satellite.name)
}
