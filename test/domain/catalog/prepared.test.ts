/**
 * Prepared snapshots (the build parses and validates the snapshot once, so the
 * executable does not): a catalogue built from the prepared form is the one
 * built by parsing the snapshot itself.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { preparedText, snapshotFromPrepared } from '../../../src/domain/catalog/prepared.ts'
import { catalogFromSnapshot, fromBundle } from '../../../src/domain/catalog/snapshot.ts'

const DATA = resolve(import.meta.dir, '../../../data')
const NOW = Date.UTC(2026, 4, 31)

describe('prepared snapshots', () => {
  test('the real snapshot: the same satellites, element sets, groups and refusals as parsing it', () => {
    const bundlePath = join(DATA, 'snapshot.json')
    const parsed = catalogFromSnapshot(fromBundle(JSON.parse(readFileSync(bundlePath, 'utf8')), bundlePath, 'embedded'), 'embedded', NOW)
    // Through JSON, as the build writes it and the executable reads it.
    const prepared = JSON.parse(preparedText(fromBundle(JSON.parse(readFileSync(bundlePath, 'utf8')), bundlePath, 'embedded')))
    const fromPrepared = catalogFromSnapshot(snapshotFromPrepared(prepared, 'prepared'), 'embedded', NOW)
    expect(fromPrepared.catalog.size).toBe(parsed.catalog.size)
    expect(fromPrepared.catalog.satellites).toEqual(parsed.catalog.satellites)
    expect(fromPrepared.catalog.groupCounts).toEqual(parsed.catalog.groupCounts)
    expect(fromPrepared.catalog.version).toBe(parsed.catalog.version)
    expect(fromPrepared.invalidByGroup).toEqual(parsed.invalidByGroup)
    expect(fromPrepared.examples).toEqual(parsed.examples)
  })

})
