/**
 * The shape of the source tree (docs/architecture.md): three layers, imports
 * pointing down only, no cycle anywhere, and a domain that is pure.
 *
 *   src/main.ts   wiring only, and src/config.ts the command line it reads (may import anything)
 *   src/http/     Elysia routes, plugins, answers (may import io, domain; effects only through io)
 *   src/web/      the page the service serves     (bundled by http)
 *   src/io/       clock, timers, files, network, signals, memory (may import domain)
 *   src/domain/   pure: catalogue, orbits, sky, nearby, passes, search numerics
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..')
const SRC = join(ROOT, 'src')

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : [path]
  })

const sources = walk(SRC).filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))
const name = (path: string) => relative(ROOT, path)

/** The files under src/ a source file imports (type-only imports included: they make cycles too). */
function importsOf(path: string): string[] {
  const text = readFileSync(path, 'utf8')
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]!)
  return specifiers.map((specifier) => resolve(dirname(path), specifier)).filter((target) => target.startsWith(SRC + '/'))
}

const graph = new Map(sources.map((path) => [path, importsOf(path)]))

/** A layer's rank: a file imports only files of its own rank or lower. */
function rank(path: string): number {
  const inside = name(path)
  if (inside === 'src/main.ts' || inside === 'src/config.ts') return 4
  if (inside.startsWith('src/http/') || inside.startsWith('src/web/')) return 3
  if (inside.startsWith('src/io/')) return 2
  if (inside.startsWith('src/domain/')) return 1
  return 0
}

/** What only src/io (and main.ts, which wires it) may do: the clock, timers, disk, network, process, GC; and module-level `let`. */
const EFFECTS = [
  /\bDate\.now\b/, /\bperformance\.now\b/, /\bnew Date\(\)/, /\b(set|clear)(Timeout|Interval|Immediate)\b/, /\bqueueMicrotask\b/,
  /\bBun\.(file|write|gc|spawn|serve|sleep|nanoseconds)\b/, /\bfetch\(/, /\bprocess\./, /from ['"](node:)?(fs|net|http|https|child_process|os)(\/promises)?['"]/,
  /from ['"]bun:jsc['"]/, /^(let|var) /m,
  // a module-level container (a table of constants is typed Readonly…)
  /^(export )?const \w+(: (?!Readonly)[^=]+)? = new (WeakMap|WeakSet|Map|Set|Array)\b/m,
  // a module-level array literal that may be changed (a table of constants ends `as const`)
  /^(export )?const \w+ = \[[^\]]*\](?!\s*(as const|\.join|\.map))/m,
]

/** `file: pattern` for each effect a layer's source files (comments left out) use. */
function layerUses(layer: number, include: (path: string) => boolean = () => true): string[] {
  return sources
    .filter((path) => rank(path) === layer && include(path))
    .flatMap((path) => {
      const code = readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
      return EFFECTS.filter((pattern) => pattern.test(code)).map((pattern) => `${name(path)}: ${pattern}`)
    })
}

describe('the source tree', () => {
  test('every source file lives in a layer', () => {
    expect(sources.filter((path) => rank(path) === 0).map(name)).toEqual([])
  })

  test('imports point down only (http → io → domain; main wires)', () => {
    const upward = [...graph].flatMap(([from, targets]) => targets.filter((to) => rank(to) > rank(from)).map((to) => `${name(from)} → ${name(to)}`))
    expect(upward).toEqual([])
  })

  test('nothing imports main.ts, and the page (src/web) only itself', () => {
    const wrong = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => name(to) === 'src/main.ts' || (name(from).startsWith('src/web/') && !name(to).startsWith('src/web/')))
        .map((to) => `${name(from)} → ${name(to)}`),
    )
    expect(wrong).toEqual([])
  })

  test('no import cycle', () => {
    const cycles: string[] = []
    const state = new Map<string, 'open' | 'done'>()
    const stack: string[] = []
    const visit = (path: string) => {
      state.set(path, 'open')
      stack.push(path)
      for (const next of graph.get(path) ?? []) {
        if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].map(name).join(' → '))
        else if (!state.has(next)) visit(next)
      }
      stack.pop()
      state.set(path, 'done')
    }
    for (const path of sources) if (!state.has(path)) visit(path)
    expect(cycles).toEqual([])
  })

  test('the domain is pure: no clock, timers, disk, network, process, GC or module-level mutable state', () => {
    expect(layerUses(1)).toEqual([])
  })

  test('the HTTP layer reads the clock, sets timers and touches the disk, process and memory only through src/io; no module-level mutable state', () => {
    expect(layerUses(3, (path) => name(path).startsWith('src/http/'))).toEqual([])
  })

  test('plugins and answers (representations) never import routes; routes use them', () => {
    const wrong = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => /^src\/http\/(plugins|representations)\//.test(name(from)) && name(to).startsWith('src/http/routes/'))
        .map((to) => `${name(from)} → ${name(to)}`),
    )
    expect(wrong).toEqual([])
  })
})
