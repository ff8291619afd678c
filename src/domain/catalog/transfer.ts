/**
 * A catalogue as plain data, to hand it to another process (the workers of one
 * instance, src/io/cluster.ts): every satellite once, as a row of its element
 * set's fields and the groups it is in, with the catalogue's origin and load
 * time. The catalogue made again from it is the same catalogue: the same
 * satellites, groups, element sets and origin, so the same `version` and ETags.
 * Pure.
 */
import { buildCatalog, type Catalog, type CatalogOrigin } from './catalog.ts'
import type { ElementSet } from './elements.ts'
import { rowReader } from './prepared.ts'

export const TRANSFER_KIND = 'sattrack-catalog/1'

/** The element-set fields of a row, in order (the prepared snapshot's reader reads them by name). */
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
    const e = s.elements as unknown as Record<string, unknown>
    const row: unknown[] = FIELDS.map((f) => e[f] ?? null)
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
  const members: ElementSet[][] = transfer.groups.map(() => [])
  for (const row of transfer.rows) {
    const elements = read(row)
    for (let k = width; k < row.length; k++) members[row[k] as number]!.push(elements)
  }
  const catalog = buildCatalog(
    transfer.groups.map((group, i) => ({ group, elements: members[i]! })),
    transfer.origin,
    transfer.loadedAtMs,
  )
  if (catalog.version !== transfer.version) throw new Error(`the catalogue made from the transfer is version ${catalog.version}, not ${transfer.version}`)
  return catalog
}
