/**
 * data/snapshot.json → data/prepared.json: parses and validates the snapshot
 * once at build time (the same reading step as every source), so the
 * executable starts without doing it.
 *
 *   bun scripts/prepare.ts
 */
import { join } from 'node:path'
import { snapshotFromPrepared, preparedText } from '../src/domain/catalog/prepared.ts'
import { fromBundle } from '../src/domain/catalog/snapshot.ts'

const dataDir = join(import.meta.dir, '..', 'data')
const bundlePath = join(dataDir, 'snapshot.json')
const text = preparedText(fromBundle(await Bun.file(bundlePath).json(), bundlePath, 'embedded'))
await Bun.write(join(dataDir, 'prepared.json'), text)
const prepared = snapshotFromPrepared(JSON.parse(text), 'data/prepared.json')
const sets = prepared.groups.reduce((n, g) => n + (g.elements?.length ?? 0), 0)
const invalid = Object.values(prepared.read!.invalidByGroup).reduce((a, b) => a + b, 0)
console.log(`data/prepared.json: ${prepared.groups.length} groups, ${sets} valid element sets, ${invalid} invalid, stamp ${new Date(prepared.obtainedAtMs).toISOString()}`)
