/**
 * Real CelesTrak clients against the feed on a loopback port: Skyfield's
 * `load.tle_file(url)` reads the 3LE feed and python-sgp4's `omm.parse_csv`
 * the CSV feed (test/reference/feed_clients.py; Debian python3-skyfield and
 * python3-sgp4, `make deps-test`). Both must get the catalogue's satellites
 * with the catalogue's elements.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { SatRec } from 'satellite.js'
import { type Catalog, fullSatrec } from '../../src/domain/catalog/catalog.ts'
import { appFor } from '../helpers/catalog.ts'
import { feedCatalog, OMM_ONLY_ID, OMM_WITH_TLE_ID } from './fixtures.ts'

const PYTHON = '/usr/bin/python3'
const SCRIPT = join(import.meta.dir, '../reference/feed_clients.py')

interface ClientSatellite {
  name: string
  satnum: number
  jdsatepoch: number
  jdsatepochF: number
  inclo: number
  nodeo: number
  ecco: number
  argpo: number
  mo: number
  no_kozai: number
  bstar: number
  ndot: number
  nddot: number
}

let catalog: Catalog
let server: ReturnType<typeof Bun.serve>
let cacheDir: string
beforeAll(async () => {
  catalog = await feedCatalog()
  const app = appFor(catalog)
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: app.fetch })
  cacheDir = mkdtempSync(join(tmpdir(), 'sattrack-skyfield-'))
})
afterAll(async () => {
  await server?.stop(true)
  if (cacheDir) rmSync(cacheDir, { recursive: true, force: true })
})

async function readWithClients(query: string): Promise<{ skyfield: ClientSatellite[]; sgp4: ClientSatellite[] }> {
  const proc = Bun.spawn([PYTHON, SCRIPT, `http://127.0.0.1:${server.port}`, cacheDir, query], {
    stdout: 'pipe',
    stderr: 'pipe',
    // Loopback only: no proxy may intercept it.
    env: { ...process.env, no_proxy: '*', NO_PROXY: '*', http_proxy: '', HTTP_PROXY: '' },
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`feed_clients.py failed (exit ${code}); \`make deps-test\` installs python3-skyfield and python3-sgp4:\n${stderr}`)
  return JSON.parse(stdout)
}

/** The client's SGP4 elements equal the catalogue's (satellite.js's record of the same element set). */
function expectSameElements(client: ClientSatellite, satrec: SatRec, context: string) {
  const near = (actual: number, expected: number, tolerance: number, field: string) => {
    if (!(Math.abs(actual - expected) <= tolerance)) throw new Error(`${context}: ${field} is ${actual}, the catalogue has ${expected}`)
  }
  near(client.jdsatepoch + client.jdsatepochF, satrec.jdsatepoch, 1e-8, 'epoch (JD)') // 0.9 ms: a TLE's resolution
  near(client.inclo, satrec.inclo, 1e-6, 'inclination')
  near(client.nodeo, satrec.nodeo, 1e-6, 'node')
  near(client.ecco, satrec.ecco, 1e-7, 'eccentricity')
  near(client.argpo, satrec.argpo, 1e-6, 'argument of perigee')
  near(client.mo, satrec.mo, 1e-6, 'mean anomaly')
  near(client.no_kozai, satrec.nokozai, 1e-10, 'mean motion')
  near(client.bstar, satrec.bstar, Math.abs(satrec.bstar) * 1e-4 + 1e-12, 'B*')
  near(client.ndot, satrec.ndot, Math.abs(satrec.ndot) * 1e-4 + 1e-16, 'mean motion derivative')
}

const members = (group: string) => catalog.satellites.filter((s) => s.groups.includes(group))

describe('the feed read by Skyfield and python-sgp4 over HTTP', () => {
  test('real TLEs (GROUP=stations): the same satellites, names and elements', async () => {
    const { skyfield, sgp4 } = await readWithClients('GROUP=stations')
    const expected = members('stations')
    expect(expected.length).toBeGreaterThan(10)
    expect(skyfield.map((s) => [s.satnum, s.name])).toEqual(expected.map((s) => [s.noradId, s.name]))
    expect(sgp4.map((s) => [s.satnum, s.name])).toEqual(expected.map((s) => [s.noradId, s.name]))
    expected.forEach((satellite, i) => {
      const satrec = fullSatrec(satellite.elements)
      expectSameElements(skyfield[i]!, satrec, `Skyfield, ${satellite.noradId}`)
      expectSameElements(sgp4[i]!, satrec, `python-sgp4 CSV, ${satellite.noradId}`)
      // Published TLEs travel unchanged: Skyfield's epoch is the TLE's own, to the bit.
      expect(skyfield[i]!.jdsatepoch + skyfield[i]!.jdsatepochF).toBeCloseTo(satrec.jdsatepoch, 9)
    })
  }, 60_000)

  test('OMM-read satellites: past the TLE range only in CSV; within it in both', async () => {
    const { skyfield, sgp4 } = await readWithClients('GROUP=synthetic')
    expect(skyfield.map((s) => s.satnum)).toEqual([OMM_WITH_TLE_ID])
    expect(sgp4.map((s) => s.satnum)).toEqual([OMM_WITH_TLE_ID, OMM_ONLY_ID])
    expect(skyfield[0]!.name).toBe('SYNTH, WITH TLE')
    expect(sgp4[1]!.name).toBe('SYNTH OMM ONLY')
    expectSameElements(skyfield[0]!, fullSatrec(catalog.get(OMM_WITH_TLE_ID)!.elements), 'Skyfield, generated TLE')
    for (const client of sgp4) {
      const satrec = fullSatrec(catalog.get(client.satnum)!.elements)
      expectSameElements(client, satrec, `python-sgp4 CSV, ${client.satnum}`)
      // OMM carries the epoch to the microsecond: the CSV reader gets it exactly.
      expect(Math.abs(client.jdsatepoch + client.jdsatepochF - satrec.jdsatepoch) * 86_400e6).toBeLessThan(2)
    }
  }, 60_000)
})
