/**
 * The docs stay in their places and point at each other correctly: every
 * relative link of the README and docs/ names a file of the repository (and,
 * with a #fragment, a heading of it, slugged as GitHub does), nothing cites a
 * file outside the repository, and the README stays a page for users.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '../..')
const DOCS = ['README.md', 'data/README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]

/** GitHub's heading anchor: lower case, punctuation other than `-` and `_` dropped, spaces to `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '')
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const match of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = slug(match[1]!)
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    anchors.add(n === 0 ? base : `${base}-${n}`)
  }
  return anchors
}

/** Markdown links `[text](target)` outside code blocks. */
function linksOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '')
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!)
}

describe('the docs', () => {
  test('every relative link names a file of the repository, and a heading of it', () => {
    const broken: string[] = []
    for (const file of DOCS) {
      for (const target of linksOf(file)) {
        if (/^[a-z]+:/i.test(target)) continue
        const [path, fragment] = target.split('#') as [string, string | undefined]
        const resolved = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), path)
        if (!resolved.startsWith(ROOT + '/') || !existsSync(resolved)) {
          broken.push(`${file}: ${target} (no such file)`)
          continue
        }
        if (fragment !== undefined && resolved.endsWith('.md') && !anchorsOf(relative(ROOT, resolved)).has(fragment)) {
          broken.push(`${file}: ${target} (no such heading)`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  test('nothing in the repository cites the shared notes outside it (API.md, DESIGN.md, STACK.md, ../shared)', () => {
    const tracked = Bun.spawnSync(['git', 'ls-files', 'src', 'test', 'scripts', 'bench', 'docs', 'README.md', 'deploy'], { cwd: ROOT }).stdout.toString().split('\n').filter(Boolean)
    const citing = tracked
      .filter((file) => existsSync(join(ROOT, file)) && !/\.(png|json)$/.test(file) && file !== 'test/docs/links.test.ts')
      .flatMap((file) =>
        readFileSync(join(ROOT, file), 'utf8')
          .split('\n')
          .map((line, i) => ({ line, where: `${file}:${i + 1}` }))
          // The older CelesTrak snapshots tests compare against are data, not docs (SHARED_SNAPSHOTS).
          .filter(({ line }) => /\bAPI\.md\b|\bDESIGN\.md\b|\bSTACK\.md\b|\.\.\/shared\b/.test(line) && !/SHARED_SNAPSHOTS/.test(line))
          .map(({ where }) => where),
      )
    expect(citing).toEqual([])
  })

  test('every source, test or script file the docs name (`src/…`, `test/…`, `scripts/…`, `bench/…`) exists', () => {
    const missing: string[] = []
    for (const file of DOCS) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      for (const match of text.matchAll(/`((?:src|test|scripts|bench|deploy)\/[\w./-]+)`/g)) {
        const path = match[1]!.replace(/[.,]$/, '')
        if (!existsSync(join(ROOT, path))) missing.push(`${file}: ${path}`)
      }
    }
    expect(missing).toEqual([])
  })

  test('the README is a page for users: at most 300 lines', () => {
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300)
  })

  test('slugs as GitHub makes them', () => {
    expect(slug('Which satellites have a position')).toBe('which-satellites-have-a-position')
    expect(slug('`GET /api/v1/service/status`')).toBe('get-apiv1servicestatus')
    expect(slug('A refresh round: group by group')).toBe('a-refresh-round-group-by-group')
    expect(slug('Signals: reload and stop')).toBe('signals-reload-and-stop')
  })
})
