/**
 * data/snapshot.json → data/prepared.bin: parses and validates the snapshot
 * once at build time (the same reading step as every source) and makes its
 * catalogue, so the executable starts without doing either
 * (src/domain/catalog/prepared.ts).
 *
 *   bun scripts/prepare.ts
 */
import { join } from 'node:path'
import { preparedBytes, snapshotFromPrepared } from '../src/domain/catalog/prepared.ts'
import { fromBundle } from '../src/domain/catalog/snapshot.ts'

const dataDir = join(import.meta.dir, '..', 'data')
const bundlePath = join(dataDir, 'snapshot.json')
const bytes = preparedBytes(fromBundle(await Bun.file(bundlePath).json(), bundlePath, 'embedded'))
await Bun.write(join(dataDir, 'prepared.bin'), bytes)
const prepared = snapshotFromPrepared(bytes, 'data/prepared.bin')
const invalid = Object.values(prepared.read!.invalidByGroup).reduce((a, b) => a + b, 0)
console.log(`data/prepared.bin: ${prepared.groups.length} groups, ${prepared.sorted!.length} satellites, ${invalid} invalid element sets, stamp ${new Date(prepared.obtainedAtMs).toISOString()}`)
