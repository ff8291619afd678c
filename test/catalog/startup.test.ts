/** The catalogue a start uses: the newest of the embedded snapshot, --snapshot and the cache. */
import { describe, expect, test } from 'bun:test'
import type { SnapshotData } from '../../src/catalog/snapshot.ts'
import { chooseStartCatalog, rankCandidates, type StartCandidate } from '../../src/catalog/startup.ts'
import { ommJson, syntheticGroup, tleText } from '../fixtures/synthetic.ts'

const snapshot = (stampMs: number, firstId: number, description = `data from ${firstId}`): SnapshotData => ({
  stampMs,
  description,
  groups: [{ group: 'g', text: tleText(syntheticGroup(firstId, 3)) }],
})
const DAY = 86_400_000
const T = Date.UTC(2026, 4, 30)

describe('rankCandidates', () => {
  test('newest data first', () => {
    const ranked = rankCandidates([
      { source: 'embedded', snapshot: snapshot(T, 1000) },
      { source: 'snapshot', snapshot: snapshot(T - 6 * DAY, 2000) },
      { source: 'cache', snapshot: snapshot(T + DAY, 3000) },
    ])
    expect(ranked.map((c) => c.source)).toEqual(['cache', 'embedded', 'snapshot'])
  })

  test('a tie goes to the cache, then to --snapshot', () => {
    const ranked = rankCandidates([
      { source: 'embedded', snapshot: snapshot(T, 1000) },
      { source: 'snapshot', snapshot: snapshot(T, 2000) },
      { source: 'cache', snapshot: snapshot(T, 3000) },
    ])
    expect(ranked.map((c) => c.source)).toEqual(['cache', 'snapshot', 'embedded'])
  })
})

describe('chooseStartCatalog', () => {
  test('builds only the newest usable candidate, with its origin', () => {
    const choice = chooseStartCatalog(
      [
        { source: 'embedded', snapshot: snapshot(T, 1000) },
        { source: 'snapshot', snapshot: snapshot(T + DAY, 2000) },
      ],
      T + 2 * DAY,
    )
    expect(choice?.candidate.source).toBe('snapshot')
    expect(choice?.report.catalog.origin).toEqual({ source: 'snapshot', obtainedAtMs: T + DAY })
    expect(choice?.report.catalog.get(2000)).toBeDefined()
    expect(choice?.rejected).toEqual([])
  })

  test('a newer cache with an unreadable payload is passed over, with the reason', () => {
    const brokenCache: StartCandidate = {
      source: 'cache',
      snapshot: {
        stampMs: T + DAY,
        description: '/data/catalog-cache.json',
        groups: [
          { group: 'g', text: ommJson(syntheticGroup(3000, 2)), format: 'json' },
          { group: 'h', text: 'not json', format: 'json' },
        ],
      },
    }
    const choice = chooseStartCatalog([{ source: 'embedded', snapshot: snapshot(T, 1000) }, brokenCache], T)
    expect(choice?.candidate.source).toBe('embedded')
    expect(choice?.rejected).toEqual([
      { source: 'cache', description: '/data/catalog-cache.json', reason: expect.stringMatching(/^group h: expected OMM JSON/) },
    ])
  })

  test('a candidate without a valid element set is passed over; none at all gives null', () => {
    const empty: StartCandidate = { source: 'snapshot', snapshot: { stampMs: T + DAY, description: 'empty', groups: [{ group: 'g', text: '' }] } }
    expect(chooseStartCatalog([{ source: 'embedded', snapshot: snapshot(T, 1000) }, empty], T)?.rejected).toEqual([
      { source: 'snapshot', description: 'empty', reason: 'no valid element sets' },
    ])
    expect(chooseStartCatalog([empty], T)).toBeNull()
  })
})
