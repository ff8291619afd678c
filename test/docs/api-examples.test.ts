/**
 * docs/api.md (and the README and docs/passes.md) show real answers: every `$ curl` example in
 * them is asked of the app (through app.handle, over the embedded snapshot)
 * and its shown answer must be what the app answers now. An answer may be trimmed with "…": the
 * pieces between ellipses must appear in the real answer in that order, the
 * first at its start and the last at its end unless an ellipsis stands there.
 * A JSON answer may be wrapped over lines (the line breaks and the indentation
 * that follows them are not part of it); other answers are compared line by
 * line. `curl -i` shows the status line and chosen headers before the body.
 *
 * Answers that depend on the present are those of a service whose clock reads
 * NOW (docs/api.md says so). Streams (`curl -N`) are not compared: their
 * instants are those of the run shown; the test counts them so none is
 * skipped unawares.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createApp } from '../../src/http/app.ts'
import { catalogFromSnapshot } from '../../src/domain/catalog/snapshot.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { loadEmbeddedSnapshot } from '../../src/io/embedded.ts'

const ROOT = resolve(import.meta.dir, '../..')
const NOW = Date.parse('2026-11-25T12:00:00Z')
const DOC = 'docs/api.md'
const CHECKED = [DOC, 'README.md', 'docs/passes.md']

interface Example {
  file?: string
  line: number
  flags: string[]
  path: string
  shown: string[]
}

/** The `$ curl` examples of a Markdown text: command, flags, path and the answer lines shown under it. */
export function curlExamples(markdown: string, file = DOC): Example[] {
  const lines = markdown.split('\n')
  const examples: Example[] = []
  let inShellBlock = false
  let current: Example | undefined
  lines.forEach((text, index) => {
    if (text.startsWith('```')) {
      inShellBlock = !inShellBlock && text.trim() === '```sh'
      current = undefined
      return
    }
    if (!inShellBlock) return
    if (text.startsWith('$ ')) {
      current = undefined
      const command = text.slice(2).replace(/\s+#.*$/, '')
      const match = /^curl((?:\s+-[A-Za-z]+)*)\s+'localhost:3000(\/[^']*)'$/.exec(command)
      if (!match) throw new Error(`${file}:${index + 1}: not an example this test can ask: ${text}`)
      current = { line: index + 1, flags: match[1]!.trim().split(/\s+/).filter(Boolean), path: match[2]!, shown: [] }
      examples.push(current)
      return
    }
    current?.shown.push(text)
  })
  return examples
}

/** Whether `actual` is `shown` with the parts an ellipsis stands for filled in (see the header). */
export function matchesTrimmed(shown: string, actual: string): { ok: boolean; missing?: string } {
  const pieces = shown.split('…')
  let from = 0
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!
    const at = actual.indexOf(piece, from)
    if (at < 0 || (i === 0 && at !== 0)) return { ok: false, missing: piece }
    from = at + piece.length
  }
  if (pieces.length > 0 && !shown.endsWith('…') && from !== actual.length) return { ok: false, missing: '(the end of the answer)' }
  return { ok: true }
}

const examples = curlExamples(readFileSync(join(ROOT, DOC), 'utf8'))
const everyExample = CHECKED.flatMap((file) => curlExamples(readFileSync(join(ROOT, file), 'utf8'), file).map((e) => ({ ...e, file })))

async function appNow() {
  const { catalog } = catalogFromSnapshot(await loadEmbeddedSnapshot(), 'embedded', NOW)
  return createApp({ store: new CatalogStore(catalog), clock: () => NOW, startedAtMs: NOW })
}

describe('the examples of docs/api.md', () => {
  test('there are examples of every endpoint', () => {
    const paths = new Set(examples.map((e) => new URL(e.path, 'http://x').pathname.replace(/\/\d+(?=\/|$)/g, '/{id}')))
    for (const path of [
      '/api/v1/satellites',
      '/api/v1/satellites/{id}',
      '/api/v1/satellites/iss',
      '/api/v1/satellites/{id}/geoposition',
      '/api/v1/satellites/geoposition',
      '/api/v1/satellites/nearby',
      '/api/v1/satellites/{id}/passes',
      '/api/v1/satellites/{id}/positions',
      '/api/v1/satellites/{id}/stream',
      '/NORAD/elements/gp.php',
      '/api/v1/service/healthcheck',
      '/api/v1/service/status',
    ]) {
      expect({ path, shown: paths.has(path) }).toEqual({ path, shown: true })
    }
    // Only streams go unchecked.
    expect(examples.filter((e) => e.flags.includes('-N')).every((e) => e.path.includes('/stream'))).toBe(true)
  })

  test('each shown answer (here and in the README) is what the app answers', async () => {
    const app = await appNow()
    const wrong: { where: string; differs: string; answer: string }[] = []
    let checked = 0
    for (const example of everyExample) {
      if (example.flags.includes('-N')) continue
      const response = await app.handle(new Request(`http://localhost${example.path}`))
      const body = (await response.text()).replace(/\r\n/g, '\n')
      const where = `${example.file}:${example.line} ${example.path}`
      let shown = example.shown
      while (shown.length > 0 && shown.at(-1)!.trim() === '') shown = shown.slice(0, -1)
      if (example.flags.includes('-i')) {
        const blank = shown.indexOf('')
        const head = shown.slice(0, blank)
        shown = shown.slice(blank + 1)
        const status = `HTTP/1.1 ${response.status} ${statusText(response.status)}`
        if (head[0] !== status) wrong.push({ where, differs: head[0]!, answer: status })
        for (const header of head.slice(1)) {
          const [name, ...value] = header.split(': ')
          if (response.headers.get(name!) !== value.join(': ')) wrong.push({ where, differs: header, answer: `${name}: ${response.headers.get(name!)}` })
        }
      }
      const json = (response.headers.get('content-type') ?? '').includes('json')
      const expected = json ? shown.map((line, i) => (i === 0 ? line : line.trimStart())).join('') : shown.join('\n')
      const actual = json ? body : body.replace(/\n$/, '')
      const result = matchesTrimmed(expected, actual)
      if (!result.ok) wrong.push({ where, differs: result.missing!, answer: actual.slice(0, 2000) })
      checked++
    }
    expect(wrong).toEqual([])
    expect(checked).toBeGreaterThanOrEqual(20)
  }, 120_000)
})

describe('matchesTrimmed', () => {
  test('pieces in order, anchored at the ends unless an ellipsis stands there', () => {
    expect(matchesTrimmed('{"a":1,…"c":3}', '{"a":1,"b":2,"c":3}').ok).toBe(true)
    expect(matchesTrimmed('{"a":1,…', '{"a":1,"b":2}').ok).toBe(true)
    expect(matchesTrimmed('…"b":2…', '{"a":1,"b":2}').ok).toBe(true)
    expect(matchesTrimmed('{"a":1}', '{"a":1,"b":2}').ok).toBe(false)
    expect(matchesTrimmed('"b":2}', '{"a":1,"b":2}').ok).toBe(false)
    expect(matchesTrimmed('{"a":1,…"c":3…"b":2…', '{"a":1,"b":2,"c":3}').ok).toBe(false)
    expect(matchesTrimmed('{"a":2,…', '{"a":1,"b":2}').ok).toBe(false)
  })

  test('examples are read from ```sh blocks only, with the answer lines under each command', () => {
    const text = ['```sh', "$ curl 'localhost:3000/a?x=1'", '{"a":', ' 1}', "$ curl -i 'localhost:3000/b'   # a note", 'HTTP/1.1 200 OK', '```', '```', "$ curl 'localhost:3000/c'", '```'].join('\n')
    expect(curlExamples(text)).toEqual([
      { line: 2, flags: [], path: '/a?x=1', shown: ['{"a":', ' 1}'] },
      { line: 5, flags: ['-i'], path: '/b', shown: ['HTTP/1.1 200 OK'] },
    ])
  })
})

function statusText(status: number): string {
  const texts: Record<number, string> = { 200: 'OK', 304: 'Not Modified', 400: 'Bad Request', 404: 'Not Found', 405: 'Method Not Allowed', 422: 'Unprocessable Entity' }
  return texts[status] ?? String(status)
}
