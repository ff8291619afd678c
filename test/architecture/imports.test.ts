/**
 * The modules of src/ import each other without a cycle, type-only imports
 * included (a cycle, even of types, ties modules that the layers keep apart).
 * Reads every import and export-from of src/ and searches the graph.
 */
import { expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const SRC = resolve(import.meta.dir, '../../src')

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** The relative modules a file imports (static imports, `import type`, `export … from`, dynamic `import('…')`). */
export function importsOf(file: string, text: string): string[] {
  const found: string[] = []
  const pattern = /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm
  for (const m of text.matchAll(pattern)) {
    const spec = m[1] ?? m[2]!
    found.push(resolve(dirname(file), spec))
  }
  return found
}

/** Every cycle's modules (one per strongly connected component of more than one module, or a module importing itself). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0
  const indices = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string) => {
    indices.set(v, index)
    low.set(v, index++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!indices.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indices.get(w)!))
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort())
    }
  }
  for (const v of graph.keys()) if (!indices.has(v)) visit(v)
  return found
}

test('the scan finds a cycle when there is one (types included)', () => {
  const a = join(SRC, 'a.ts')
  const b = join(SRC, 'b.ts')
  const c = join(SRC, 'c.ts')
  expect(importsOf(a, "import type { X } from './b.ts'\nexport { y } from './c.ts'\nconst z = await import('./b.ts')")).toEqual([b, c, b])
  expect(cycles(new Map([[a, [b]], [b, [c]], [c, [a]]]))).toEqual([[a, b, c]])
  expect(cycles(new Map([[a, [b]], [b, [c]], [c, []]]))).toEqual([])
})

test('src/ has no import cycle', () => {
  const files = sources(SRC)
  const graph = new Map(files.map((file) => [file, importsOf(file, readFileSync(file, 'utf8'))]))
  expect(graph.size).toBeGreaterThan(50)
  expect(cycles(graph).map((cycle) => cycle.map((f) => relative(SRC, f)))).toEqual([])
})
