/**
 * The snapshot the build embeds lives in data/ (committed): one file per
 * group as published (`<group>.tle`, or `<group>.json` / `<group>.csv` for
 * OMM) and `data/SOURCE` (when it was obtained, from where).
 *
 *   bun scripts/snapshot.ts --bundle          data/ → data/snapshot.json (what the build embeds; make does this)
 *   bun scripts/snapshot.ts --from PATH       replaces data/ from a folder or file of TLE/3LE/OMM (offline)
 *   bun scripts/snapshot.ts --download        replaces data/ from CelesTrak's GP endpoint (run by a person only)
 *   … --into DIR                              another folder in place of data/ (tests)
 *
 * --from takes what `--snapshot` takes: a folder of group files (a folder
 * named like `2026-05-30T2250Z` gives the stamp, otherwise the newest element
 * set dates it), one file (its name is the group), a `snapshot.json` bundle; and
 * also a parent of stamped folders (the newest is used). Undated files are
 * dated by when they were written (never by their element sets' epochs, never
 * later than now). Every group goes through the same reading step as a start,
 * a refresh and a reload (src/domain/catalog/groups.ts: parse, one set per satellite,
 * validate); each set refused is printed, and data/ is replaced only when every
 * group holds valid element sets (otherwise it is left as it was, exit code 1).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { formatOfFileName } from '../src/domain/catalog/formats.ts'
import { describeRefusal, type GroupSet, readGroups } from '../src/domain/catalog/groups.ts'
import { MAX_LOGGED_REFUSALS } from '../src/domain/catalog/overlay.ts'
import { bundleText, parseFolderStamp } from '../src/domain/catalog/snapshot.ts'
import { believableDate } from '../src/domain/catalog/startup.ts'
import { loadSnapshotPath } from '../src/io/snapshot-files.ts'

const GROUPS = ['stations', 'starlink', 'oneweb', 'geo', 'weather', 'resource', 'science', 'military']
const CELESTRAK_GP = 'https://celestrak.org/NORAD/elements/gp.php'
export const SOURCE_FILE = 'SOURCE'
/** Files of data/ that are generated from the others, never groups. */
// prepared.json: what builds before prepared.bin wrote; a checkout may still hold one.
const GENERATED = new Set(['snapshot.json', 'prepared.bin', 'prepared.json'])

const args = process.argv.slice(2)
const option = (name: string) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const DATA_DIR = option('--into') ?? join(import.meta.dir, '..', 'data')

const fail = (message: string): never => {
  console.error(`make snapshot: ${message}`)
  process.exit(1)
}

/** The group files of data/, sorted. */
function groupFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => formatOfFileName(n) !== null && !GENERATED.has(n) && !n.startsWith('.'))
    .sort()
}

/** data/SOURCE: `stamp: <ISO>` and `source: <text>` lines. */
function readSource(): { stamp: string; source: string } {
  const path = join(DATA_DIR, SOURCE_FILE)
  if (!existsSync(path)) fail(`${path} is missing (it says when the snapshot in data/ was obtained); run make snapshot FROM=PATH`)
  const fields: Record<string, string> = {}
  for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
    const m = /^([a-z-]+):\s*(.*)$/.exec(line.trim())
    if (m) fields[m[1]!] = m[2]!
  }
  if (!fields.stamp || !Number.isFinite(Date.parse(fields.stamp))) fail(`${path} has no valid "stamp: <ISO time>" line`)
  return { stamp: new Date(Date.parse(fields.stamp!)).toISOString(), source: fields.source ?? 'data/' }
}

/** data/<group files> + data/SOURCE → data/snapshot.json. */
function bundle(): void {
  const { stamp, source } = readSource()
  const groups: Record<string, string> = {}
  for (const name of groupFiles(DATA_DIR)) {
    const group = name.slice(0, name.lastIndexOf('.'))
    if (group in groups) fail(`data/ holds two files for group ${group}`)
    groups[group] = readFileSync(join(DATA_DIR, name), 'utf8')
  }
  if (Object.keys(groups).length === 0) fail('data/ holds no <group>.tle, <group>.json or <group>.csv file: run make snapshot FROM=PATH')
  writeFileSync(join(DATA_DIR, 'snapshot.json'), bundleText(stamp, source, groups))
  console.log(`data/snapshot.json: ${Object.keys(groups).length} groups, stamp ${stamp}, from ${source}`)
}

/**
 * Replaces the group files and SOURCE of data/ in one go: every group is read
 * and validated first (the pipeline's one reading step, against the time the
 * data was obtained) and written to a side folder, so a bad input leaves data/
 * as it was. The files keep the payloads as published.
 */
function replaceData(input: GroupSet, source: string): void {
  const { set, warning } = believableDate(input, Date.now(), 'input')
  if (warning) console.error(`make snapshot: ${warning.message} (${warning.fields.stamp})`)
  const read = readGroups(set)
  const refused = set.groups.flatMap((g) => (g.refused ?? []).map((r) => describeRefusal(g.group, r)))
  for (const line of refused.slice(0, MAX_LOGGED_REFUSALS)) console.error(`make snapshot: element set refused: ${line}`)
  if (refused.length > MAX_LOGGED_REFUSALS) console.error(`make snapshot: ${refused.length - MAX_LOGGED_REFUSALS} more element sets refused`)
  const files: [string, string][] = []
  let sets = 0
  for (const g of set.groups) {
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(g.group) || GENERATED.has(`${g.group}.json`)) fail(`${JSON.stringify(g.group)} cannot be a group name; data/ is unchanged`)
    const unreadable = read.unreadableGroups[g.group]
    if (unreadable) fail(`group ${g.group}: ${unreadable}; data/ is unchanged`)
    const valid = g.elements?.length ?? 0
    if (valid === 0) fail(`group ${g.group} holds no valid element set (${g.refused?.length ?? 0} refused); data/ is unchanged`)
    sets += valid
    files.push([`${g.group}.${g.format}`, g.text ?? ''])
  }
  if (files.length === 0) fail('nothing to take: no group files; data/ is unchanged')
  const side = join(DATA_DIR, `.incoming-${process.pid}`)
  rmSync(side, { recursive: true, force: true })
  mkdirSync(side, { recursive: true })
  for (const [name, text] of files) writeFileSync(join(side, name), text)
  const stamp = new Date(set.obtainedAtMs).toISOString()
  writeFileSync(join(side, SOURCE_FILE), `stamp: ${stamp}\nsource: ${source}\n`)
  for (const name of groupFiles(DATA_DIR)) rmSync(join(DATA_DIR, name))
  for (const name of readdirSync(side)) renameSync(join(side, name), join(DATA_DIR, name))
  rmSync(side, { recursive: true, force: true })
  console.log(`data/: ${files.length} groups, ${sets} valid element sets${refused.length > 0 ? ` (${refused.length} refused)` : ''}, stamp ${stamp}, from ${source}`)
}

/** A folder holding no group files but stamped snapshot folders: the newest of them. */
function newestStamped(path: string): string {
  if (!statSync(path).isDirectory() || groupFiles(path).length > 0) return path
  const stamped = readdirSync(path)
    .filter((n) => parseFolderStamp(n) !== null)
    .sort()
  return stamped.length > 0 ? join(path, stamped.at(-1)!) : path
}

async function fromPath(input: string): Promise<void> {
  if (!existsSync(input)) fail(`${input} does not exist`)
  const path = newestStamped(input)
  if (statSync(path).isDirectory()) {
    // One file per group: two files of one group would have to be merged, which is not "as published".
    const seen = new Map<string, string>()
    for (const name of groupFiles(path)) {
      const group = name.slice(0, name.lastIndexOf('.'))
      if (seen.has(group)) fail(`${path} holds two files for group ${group} (${seen.get(group)}, ${name}): keep one`)
      seen.set(group, name)
    }
  }
  let snapshot
  try {
    snapshot = await loadSnapshotPath(path)
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
  const stampName = basename(path)
  const source = parseFolderStamp(stampName) !== null ? `CelesTrak GP snapshot ${stampName}` : `${basename(path)} (dated by ${snapshot.datedBy ?? 'stamp'})`
  replaceData(snapshot, snapshot.description === path ? source : snapshot.description)
}

async function download(): Promise<void> {
  const startedAt = Date.now()
  const set: GroupSet = { source: 'snapshot', description: CELESTRAK_GP, obtainedAtMs: startedAt, datedBy: 'stamp', groups: [] }
  for (const group of GROUPS) {
    const url = `${CELESTRAK_GP}?GROUP=${group}&FORMAT=tle`
    const res = await fetch(url, { headers: { 'User-Agent': 'sattrack-snapshot' } })
    const text = await res.text()
    if (res.status !== 200) fail(`${url} answered HTTP ${res.status}; data/ is unchanged`)
    set.groups.push({ group, source: 'snapshot', obtainedAtMs: startedAt, format: 'tle', text })
  }
  replaceData(set, CELESTRAK_GP)
}

if (import.meta.main) {
  const from = option('--from')
  if (from) await fromPath(from)
  else if (args.includes('--download')) await download()
  else if (!args.includes('--bundle')) fail('say --bundle, --from PATH or --download')
  bundle()
}
