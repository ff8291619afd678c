/** SerialisedList: answers cut from the list's bytes are, byte for byte, what serialising the same satellites anew writes. */
import { describe, expect, test } from 'bun:test'
import { buildCatalog, type Catalog } from '../../../src/domain/catalog/catalog.ts'
import { satelliteJson } from '../../../src/http/routes/satellites/model.ts'
import { SerialisedList } from '../../../src/http/routes/satellites/serialised-list.ts'
import { elementsOf, syntheticGroup } from '../../fixtures/synthetic.ts'
import { embeddedCatalog } from '../../helpers/catalog.ts'
import { random } from '../../helpers/nearby.ts'

const ORIGIN = { source: 'snapshot', obtainedAtMs: 0 } as const

/** What the answer for these satellites was before it was cut: JSON.stringify of the objects. */
const expected = (catalog: Catalog, indices: readonly number[], metadata: object) =>
  JSON.stringify({ data: indices.map((i) => satelliteJson(catalog.satellites[i]!)), metadata })

/** Index sets of every shape: none, the first, the last, everything, runs, sparse and dense random picks. */
function indexSets(size: number, seed: number): number[][] {
  const next = random(seed)
  const all = [...Array(size).keys()]
  const sets = [[], [0], [size - 1], all, [0, size - 1], all.slice(1, -1), all.filter((i) => i % 2 === 0), all.filter((i) => i % 7 < 3)]
  for (const density of [0.001, 0.05, 0.5, 0.95]) sets.push(all.filter(() => next() < density))
  return sets
}

async function expectCutsMatch(catalog: Catalog, seed: number) {
  const list = new SerialisedList(catalog)
  // Searches arriving together before the copy is made wait for the same one; once made, nothing to wait for.
  const making = list.prepareCuts()
  expect(list.prepareCuts()).toBe(making)
  await making
  expect(list.prepareCuts()).toBeUndefined()
  expect(await list.body.text()).toBe(expected(catalog, [...Array(catalog.size).keys()], { total: catalog.size }))
  for (const indices of indexSets(catalog.size, seed)) {
    const metadata = { total: indices.length * 3, page: 2, pageSize: 100, pages: 7 }
    const cut = list.cut(indices, metadata)
    const text = await new Response(cut.stream()).text()
    expect(text).toBe(expected(catalog, indices, metadata))
    expect(cut.size).toBe(Buffer.byteLength(text))
  }
}

describe('SerialisedList', () => {
  test('the real catalogue: the list and cuts of every shape equal serialising anew', async () => {
    await expectCutsMatch(await embeddedCatalog(), 1)
  })

  test('names of several UTF-8 bytes per character keep every cut on its boundaries', async () => {
    const groups = [
      { group: 'a', elements: syntheticGroup(70001, 40, { namePrefix: 'ÉTOILE ÅÄÖ' }).map(elementsOf) },
      { group: 'b', elements: syntheticGroup(70041, 40, { namePrefix: '衛星 🛰' }).map(elementsOf) },
      { group: 'c', elements: syntheticGroup(70081, 40).map(elementsOf) },
    ]
    const catalog = buildCatalog(groups, ORIGIN, 0)
    expect(catalog.satellites.some((s) => s.name.includes('🛰'))).toBe(true)
    await expectCutsMatch(catalog, 2)
  })

  test('an empty catalogue', async () => {
    const catalog = buildCatalog([], ORIGIN, 0)
    const list = new SerialisedList(catalog)
    expect(() => list.cut([], { total: 0 })).toThrow('before prepareCuts')
    await list.prepareCuts()
    expect(await list.body.text()).toBe('{"data":[],"metadata":{"total":0}}')
    expect(await new Response(list.cut([], { total: 0 }).stream()).text()).toBe('{"data":[],"metadata":{"total":0}}')
  })
})
