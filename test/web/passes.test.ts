/**
 * The page's reading of a pass without a rise or a set (src/web/passes.ts
 * positionsEdge): cut by the searched time ("already up", "still up"), or where
 * the satellite's positions begin or end (the age limit), against the API's
 * own answers: the edge is the first millisecond after a stretch without
 * positions, or the last one before it.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { passDateOf, positionsEdge } from '../../src/web/passes.ts'
import { appFor, embeddedCatalog, request } from '../helpers/catalog.ts'

const PARIS = 'latitude=48.85&longitude=2.35'
let app: ReturnType<typeof appFor>
beforeAll(async () => {
  app = appFor(await embeddedCatalog())
})

const shift = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString()

describe('positionsEdge', () => {
  test('a pass whose positions begin inside the searched time (the age limit before the epoch): the first millisecond after the stretch without them', async () => {
    const { body } = await request(app, `/api/v1/satellites/62226/passes?${PARIS}&time=2026-04-29T20:00:00Z&visible-only=true`)
    const [span] = body.metadata.noPosition
    const cut = body.data.find((p: any) => p.rise === null)
    expect(cut).toBeDefined()
    expect(positionsEdge(cut.culmination, body.metadata.noPosition, 'begin')).toBe(shift(span.to, 1))
    // Its row is dated where its positions begin, not by its culmination (which may be days later for a slow pass).
    expect(passDateOf(cut, body.metadata.noPosition)).toBe(shift(span.to, 1))
    // Its set is a real one: no stretch without positions after it.
    expect(positionsEdge(cut.culmination, body.metadata.noPosition, 'end')).toBeNull()
  })

  test('passes whose positions end inside a night a month after the data: the last millisecond before the stretch without them', async () => {
    const { body } = await request(app, `/api/v1/passes?${PARIS}&time=2026-06-28T20:27:00Z&visible-only=true`)
    const cut = body.data.filter((p: any) => p.set === null)
    expect(cut.length).toBeGreaterThan(0)
    for (const pass of cut) {
      const spans = body.metadata.noPosition.filter((s: any) => s.noradId === pass.noradId)
      expect(spans).toHaveLength(1)
      expect(positionsEdge(pass.culmination, spans, 'end')).toBe(shift(spans[0].from, -1))
      expect(Date.parse(spans[0].from)).toBeLessThan(Date.parse(body.metadata.to))
    }
  })

  test('a pass the searched time cuts: null (the page says "already up")', async () => {
    const { body } = await request(app, `/api/v1/satellites/25544/passes?latitude=-33.8688&longitude=151.2093&time=2026-05-31T12:35:00Z&days=1`)
    const [first] = body.data
    expect(first.rise).toBeNull()
    expect(body.metadata.noPosition).toEqual([])
    expect(positionsEdge(first.culmination, body.metadata.noPosition, 'begin')).toBeNull()
  })
})
