/**
 * Fills data/ with the snapshot the build embeds.
 *
 *   bun scripts/snapshot.ts [--shared DIR] [--local-only] [--download]
 *
 * Uses the newest `<UTC stamp>/` folder under the shared snapshots (default
 * ../shared/data/celestrak) when there is one; otherwise, unless --local-only,
 * downloads every group from CelesTrak's GP endpoint (run by a person only).
 * Writes data/<group>.tle and data/snapshot.json (the bundle that is embedded).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseFolderStamp } from '../src/catalog/snapshot.ts'

const GROUPS = ['stations', 'starlink', 'oneweb', 'geo', 'weather', 'resource', 'science', 'military']
const CELESTRAK_GP = 'https://celestrak.org/NORAD/elements/gp.php'
const DATA_DIR = join(import.meta.dir, '..', 'data')

const args = process.argv.slice(2)
const option = (name: string) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}
const sharedRoot = option('--shared') ?? join(import.meta.dir, '..', '..', 'shared', 'data', 'celestrak')
const localOnly = args.includes('--local-only')
const forceDownload = args.includes('--download')

function writeSnapshot(stamp: string, source: string, groups: Record<string, string>): void {
  mkdirSync(DATA_DIR, { recursive: true })
  for (const name of readdirSync(DATA_DIR)) if (name.endsWith('.tle')) rmSync(join(DATA_DIR, name))
  for (const [group, text] of Object.entries(groups)) writeFileSync(join(DATA_DIR, `${group}.tle`), text)
  writeFileSync(join(DATA_DIR, 'snapshot.json'), JSON.stringify({ stamp, source, groups }))
  const sets = Object.values(groups).reduce((n, t) => n + t.split('\n').filter((l) => l.startsWith('1 ')).length, 0)
  console.log(`data/snapshot.json: ${Object.keys(groups).length} groups, ${sets} element sets, stamp ${stamp}, from ${source}`)
}

function newestSharedFolder(): string | null {
  if (!existsSync(sharedRoot)) return null
  const stamped = readdirSync(sharedRoot).filter((n) => parseFolderStamp(n) !== null).sort()
  return stamped.length ? join(sharedRoot, stamped.at(-1)!) : null
}

async function download(): Promise<void> {
  const groups: Record<string, string> = {}
  for (const group of GROUPS) {
    const url = `${CELESTRAK_GP}?GROUP=${group}&FORMAT=tle`
    const res = await fetch(url, { headers: { 'User-Agent': 'sattrack-snapshot' } })
    const text = await res.text()
    if (res.status !== 200 || !text.startsWith('1 ') && !/\n1 /.test(text)) {
      throw new Error(`${url} answered ${res.status}: ${text.slice(0, 120)}`)
    }
    groups[group] = text
  }
  writeSnapshot(new Date().toISOString(), CELESTRAK_GP, groups)
}

const folder = forceDownload ? null : newestSharedFolder()
if (folder) {
  const groups: Record<string, string> = {}
  for (const name of readdirSync(folder).filter((n) => n.endsWith('.tle')).sort()) {
    groups[name.slice(0, -4)] = readFileSync(join(folder, name), 'utf8')
  }
  const stamp = new Date(parseFolderStamp(folder.split('/').at(-1)!)!).toISOString()
  writeSnapshot(stamp, `CelesTrak GP snapshot ${folder.split('/').at(-1)}`, groups)
} else if (localOnly) {
  console.error(`no snapshot in data/ and none under ${sharedRoot}: run 'make snapshot' to download one from CelesTrak`)
  process.exit(1)
} else {
  await download()
}
