/**
 * A catalogue as plain data, to hand it to another process (the workers of one
 * instance, src/io/cluster.ts): every satellite once, as a row of its element
 * set's fields and the groups it is in, with the catalogue's origin and load
 * time. The catalogue made again from it is the same catalogue: the same
 * satellites, groups, element sets and origin, so the same `version` and ETags.
 * Pure.
 */
import { type Catalog, type CatalogOrigin, catalogOfSorted, type SortedSatellite } from './catalog.ts'
import type { ElementSet } from './elements.ts'
import type { ElementFormat } from './formats.ts'
import type { ElementGroup } from './groups.ts'
import type { Refusal } from './validate.ts'

export const TRANSFER_KIND = 'sattrack-catalog/1'

/** The element-set fields of a row, in order (rowReader reads them by name). */
const FIELDS = [
  'noradId', 'name', 'intlDesignator', 'classification', 'epochMs', 'meanMotionDot', 'meanMotionDdot', 'bstar', 'ephemerisType', 'elementSetNo',
  'inclinationDeg', 'raanDeg', 'eccentricity', 'argOfPericenterDeg', 'meanAnomalyDeg', 'meanMotionRevPerDay', 'revAtEpoch', 'tle', 'epochUs', 'sourceFormat',
] as const satisfies readonly (keyof ElementSet)[]

export interface CatalogTransfer {
  kind: typeof TRANSFER_KIND
  origin: CatalogOrigin
  loadedAtMs: number
  /** Every group of the catalogue (empty ones too), by name. */
  groups: string[]
  fields: readonly string[]
  /** One row per satellite: its element set's fields (FIELDS order; null for none), then the indices in `groups` of its groups. */
  rows: unknown[][]
  /** The catalogue's version, to check the catalogue made from this against. */
  version: string
}

export function catalogTransfer(catalog: Catalog): CatalogTransfer {
  const groups = Object.keys(catalog.groupCounts)
  const groupIndex = new Map(groups.map((g, i) => [g, i]))
  const rows = catalog.satellites.map((s) => {
    const row = elementRow(s.elements)
    for (const g of s.groups) row.push(groupIndex.get(g)!)
    return row
  })
  return { kind: TRANSFER_KIND, origin: catalog.origin, loadedAtMs: catalog.loadedAtMs, groups, fields: FIELDS, rows, version: catalog.version }
}

/** The catalogue a transfer holds; throws when it is not one, or when the catalogue made is not the one sent (a different version). */
export function catalogFromTransfer(transfer: CatalogTransfer): Catalog {
  if (transfer?.kind !== TRANSFER_KIND || !Array.isArray(transfer.rows) || !Array.isArray(transfer.groups)) throw new Error(`not a catalogue transfer (${TRANSFER_KIND})`)
  const read = rowReader(transfer.fields)
  const width = transfer.fields.length
  // The rows are the catalogue's satellites, in its order: made into one again as they are. Satellites in the same groups share one list.
  const lists = new Map<string, string[]>()
  const sorted = transfer.rows.map((row): SortedSatellite => {
    const key = row.slice(width).join()
    let groups = lists.get(key)
    if (!groups) lists.set(key, (groups = row.slice(width).map((k) => transfer.groups[k as number]!).sort()))
    return { elements: read(row), groups }
  })
  const catalog = catalogOfSorted(sorted, transfer.origin, transfer.loadedAtMs, transfer.groups)
  if (catalog.version !== transfer.version) throw new Error(`the catalogue made from the transfer is version ${catalog.version}, not ${transfer.version}`)
  return catalog
}

/** An element set as a row of FIELDS (null for a field it has not), as rowReader reads it back. */
function elementRow(elements: ElementSet): unknown[] {
  const e = elements as unknown as Record<string, unknown>
  return FIELDS.map((f) => e[f] ?? null)
}

/**
 * A group as read (readGroup: its element sets and the sets refused) as plain
 * data, and the time it was read against: kept next to the data-dir cache
 * (src/io/cache.ts) so that a start takes the group as it was read instead of
 * parsing and validating its payload again.
 */
export interface GroupReadData {
  group: string
  format: ElementFormat
  obtainedAtMs: number
  fields: readonly string[]
  rows: unknown[][]
  refused: Refusal[]
}

/** The data of a group that has been read; null for one that has not. */
export function groupReadData(g: ElementGroup): GroupReadData | null {
  if (g.elements === undefined || g.format === undefined) return null
  return { group: g.group, format: g.format, obtainedAtMs: g.obtainedAtMs, fields: FIELDS, rows: g.elements.map(elementRow), refused: [...(g.refused ?? [])] }
}

/** `g` (not read) with what `data` says reading it gave: its format, element sets and refusals. */
export function withGroupRead(g: ElementGroup, data: GroupReadData): ElementGroup {
  const read = rowReader(data.fields)
  return { ...g, format: data.format, elements: data.rows.map(read), refused: data.refused }
}

/**
 * A row of a transfer as an ElementSet. Every element set is made by
 * the same object literal, so all share one shape (several times faster to
 * make and to read than objects built key by key); a field the transfer does not
 * hold, or holds as null, is undefined (`tle`: null).
 */
export function rowReader(fields: readonly string[]): (row: unknown[]) => ElementSet {
  const column = (name: keyof ElementSet) => fields.indexOf(name)
  const at = (row: unknown[], i: number): any => (i < 0 || row[i] === null ? undefined : row[i])
  const [noradId, name, intlDesignator, classification, epochMs, meanMotionDot, meanMotionDdot, bstar, ephemerisType, elementSetNo] = (
    ['noradId', 'name', 'intlDesignator', 'classification', 'epochMs', 'meanMotionDot', 'meanMotionDdot', 'bstar', 'ephemerisType', 'elementSetNo'] as const
  ).map(column) as number[]
  const [inclinationDeg, raanDeg, eccentricity, argOfPericenterDeg, meanAnomalyDeg, meanMotionRevPerDay, revAtEpoch, tle, epochUs, sourceFormat] = (
    ['inclinationDeg', 'raanDeg', 'eccentricity', 'argOfPericenterDeg', 'meanAnomalyDeg', 'meanMotionRevPerDay', 'revAtEpoch', 'tle', 'epochUs', 'sourceFormat'] as const
  ).map(column) as number[]
  return (row) => ({
    noradId: at(row, noradId!),
    name: at(row, name!),
    intlDesignator: at(row, intlDesignator!),
    classification: at(row, classification!),
    epochMs: at(row, epochMs!),
    meanMotionDot: at(row, meanMotionDot!),
    meanMotionDdot: at(row, meanMotionDdot!),
    bstar: at(row, bstar!),
    ephemerisType: at(row, ephemerisType!),
    elementSetNo: at(row, elementSetNo!),
    inclinationDeg: at(row, inclinationDeg!),
    raanDeg: at(row, raanDeg!),
    eccentricity: at(row, eccentricity!),
    argOfPericenterDeg: at(row, argOfPericenterDeg!),
    meanAnomalyDeg: at(row, meanAnomalyDeg!),
    meanMotionRevPerDay: at(row, meanMotionRevPerDay!),
    revAtEpoch: at(row, revAtEpoch!),
    tle: at(row, tle!) ?? null,
    epochUs: at(row, epochUs!),
    sourceFormat: at(row, sourceFormat!),
  })
}
