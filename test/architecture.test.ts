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
  // the clock: Date.now(), a Date of now (new Date, new Date(), Date()), performance.now()
  /\bDate\.now\b/, /\bperformance\.now\b/, /\bnew Date\b(?!\s*\(\s*[^\s)])/, /(?<![.\w])Date\(\s*\)/,
  // timers
  /\b(set|clear)(Timeout|Interval|Immediate)\b/, /\bqueueMicrotask\b/,
  // the runtime's effects: files, processes, servers, sockets, sleep, time, environment, GC
  /\bBun\.(file|write|gc|shrink|spawn|spawnSync|serve|listen|connect|udpSocket|sleep|sleepSync|nanoseconds|env|\$)\b/, /^import (?!type )[^\n]*from ['"]bun(:jsc)?['"]/m,
  // the network, the process, the disk, threads and timing from node
  /\bfetch\(/, /\bglobalThis\.(fetch|process|Bun)\b/, /\bprocess\./,
  /from ['"](node:)?(fs|net|http|https|http2|tls|dgram|dns|child_process|cluster|worker_threads|perf_hooks|os|readline|v8|vm)(\/promises)?['"]/,
  // module-level mutable state: a variable,
  /^(export )?(let|var) /m,
  // a container (a table of constants is typed Readonly…), an empty array or object to fill,
  /^(export )?const \w+(: (?!Readonly)[^=]+)? = new (WeakMap|WeakSet|Map|Set|Array|(Float(32|64)|U?Int(8|16|32)|Uint8Clamped|Big(U?)Int64)Array)\b/m,
  /^(export )?const \w+(: (?!readonly |Readonly)[^=]+)? = (\[\s*\]|\{\s*\})/m,
  // an array literal that may be changed (a table of constants ends `as const`)
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

describe('the effects the domain may not have', () => {
  test('are each caught by a pattern (lines a pure module must not hold), and a pure line is not', () => {
    const caught = (line: string) => EFFECTS.some((pattern) => pattern.test(line))
    const effects = [
      'const t = Date.now()', 'const d = new Date()', 'const d = new Date', 'const s = Date()', 'const t = performance.now()',
      'setTimeout(f, 1)', 'queueMicrotask(f)', 'Bun.gc(true)', 'Bun.spawnSync(["ls"])', 'const e = Bun.env.X', "import { $ } from 'bun'",
      'await fetch(url)', 'globalThis.fetch(url)', 'process.exit(1)', "import { readFileSync } from 'node:fs'", "import { Worker } from 'node:worker_threads'",
      "import { performance } from 'perf_hooks'", 'export let count = 0', 'let cache', 'const seen = new Map()', 'export const xs: number[] = []',
      'const byName: Record<string, number> = {}', 'const buffer = new Float64Array(64)', 'const queue = [1, 2]',
    ]
    expect(effects.filter((line) => !caught(line))).toEqual([])
    const pure = ["const epoch = new Date(ms)", 'const d = new Date(Date.UTC(2026, 0, 1))', "const LABELS = ['LEO', 'MEO'] as const", 'const TABLE: ReadonlyMap<number, string> = new Map([[1, "a"]])', 'const x = a.date()', "import type { Server } from 'bun'", 'const NONE: readonly string[] = []']
    expect(pure.filter(caught)).toEqual([])
  })
})

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

  test('main.ts wires: it reads the clock, sets timers and handles signals only through src/io', () => {
    const code = readFileSync(join(SRC, 'main.ts'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')
    const direct = [/\bDate\.now\b/, /\bnew Date\(\s*\)/, /\bperformance\.now\b/, /\b(set|clear)(Timeout|Interval|Immediate)\b/, /\bBun\.(sleep|gc|file|write|spawn)\b/, /\bprocess\.(on|once|kill|disconnect)\b/]
    expect(direct.filter((pattern) => pattern.test(code)).map(String)).toEqual([])
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
