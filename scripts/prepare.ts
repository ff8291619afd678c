/**
 * data/snapshot.json → data/prepared.json: parses and validates the snapshot
 * once at build time, so the executable starts without doing it.
 *
 *   bun scripts/prepare.ts
 */
import { join } from 'node:path'
import { prepareSnapshot } from '../src/domain/catalog/prepared.ts'
import { fromBundle } from '../src/domain/catalog/snapshot.ts'

const dataDir = join(import.meta.dir, '..', 'data')
const bundlePath = join(dataDir, 'snapshot.json')
const prepared = prepareSnapshot(fromBundle(await Bun.file(bundlePath).json(), bundlePath))
await Bun.write(join(dataDir, 'prepared.json'), JSON.stringify(prepared))
const sets = prepared.groups.reduce((n, g) => n + g.rows.length, 0)
const invalid = Object.values(prepared.invalidByGroup).reduce((a, b) => a + b, 0)
console.log(`data/prepared.json: ${prepared.groups.length} groups, ${sets} valid element sets, ${invalid} invalid, stamp ${prepared.stamp}`)
