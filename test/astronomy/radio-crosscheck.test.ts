/**
 * Range rate and Doppler shift against Skyfield, over the real embedded catalogue:
 * every entry of /nearby (with `frequency`) for several observers and instants,
 * the rise, culmination and set of passes of low, eccentric and geostationary
 * orbits, and the first event of a live stream with an observer.
 *
 * Reference: test/reference/skyfield_radio.py (Debian's /usr/bin/python3 with
 * python3-skyfield): `(EarthSatellite - wgs84.latlon).at(t).frame_latlon_and_rates(topos)`,
 * whose range rate is the rate of change of the distance in the observer's frame.
 * The Doppler shift of the reference is −f·ṙ/c from Skyfield's ṙ (the formula of PREDICT
 * and gpredict, written out here).
 *
 * Tolerances: range rate within 1 cm/s (Skyfield turns TEME into its own frames with
 * precession, nutation and the Earth rotation angle, satellite.js with GMST alone; the
 * runs agree to about 0.1 mm/s), so the Doppler shift within f · 1 cm/s / c (0.015 Hz
 * at 437.8 MHz); the look angles within 0.05° and the range within 0.5 km as in the
 * other cross-checks, to be sure the same instant is compared.
 */
import { beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { appFor, embeddedCatalog, request } from '../helpers/catalog.ts'

const ROOT = new URL('../..', import.meta.url).pathname
const PYTHON = '/usr/bin/python3'
const REFERENCE_SCRIPT = `${ROOT}test/reference/skyfield_radio.py`
const SNAPSHOT = `${ROOT}data/snapshot.json`
const C_KM_S = 299_792.458
const FREQUENCY_MHZ = 437.8
const TOL = { rangeRateKmS: 0.00001, angleDeg: 0.05, rangeKm: 0.5 }

interface Observer {
  latitude: number
  longitude: number
  altitude: number
}
const PARIS: Observer = { latitude: 48.8566, longitude: 2.3522, altitude: 35 }
const SYDNEY: Observer = { latitude: -33.8688, longitude: 151.2093, altitude: 58 }
const QUITO: Observer = { latitude: -0.1807, longitude: -78.4678, altitude: 2850 }
const LONGYEARBYEN: Observer = { latitude: 78.2232, longitude: 15.6267, altitude: 10 }
const NEARBY_CASES: { observer: Observer; time: string }[] = [
  { observer: PARIS, time: '2026-05-31T00:00:00.000Z' },
  { observer: SYDNEY, time: '2026-05-31T10:00:00.000Z' },
  { observer: QUITO, time: '2026-05-31T20:40:00.000Z' },
  { observer: LONGYEARBYEN, time: '2026-05-31T03:17:45.250Z' },
]
const PASS_CASES: { noradId: number; observer: Observer; days: number; threshold: number }[] = [
  { noradId: 25544, observer: PARIS, days: 2, threshold: 10 },
  { noradId: 25544, observer: SYDNEY, days: 1, threshold: 0 },
  { noradId: 43013, observer: LONGYEARBYEN, days: 1, threshold: 10 },
  { noradId: 47719, observer: LONGYEARBYEN, days: 2, threshold: 10 },
  { noradId: 39120, observer: { latitude: 72.787, longitude: -56.147, altitude: 20 }, days: 2, threshold: 10 },
]
const T0 = '2026-05-31T00:00:00.000Z'

interface RefPoint {
  elevation: number
  azimuth: number
  range: number
  rangeRate: number
}
interface Compared {
  label: string
  noradId: number
  datetime: string
  observer: Observer
  point: { elevation: number; azimuth: number; range?: number; rangeRate: number; dopplerShiftHz?: number }
}

async function runReference(input: unknown): Promise<{ cases: { at: RefPoint[] }[] }> {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run \`make deps-test\``)
  const proc = Bun.spawn([PYTHON, REFERENCE_SCRIPT], {
    cwd: ROOT,
    stdin: new TextEncoder().encode(JSON.stringify(input)),
    env: { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  if (code !== 0) throw new Error(`reference failed (exit ${code}); \`make deps-test\` installs python3-skyfield:\n${stderr}`)
  return JSON.parse(stdout)
}

const observerQuery = (o: Observer) => `latitude=${o.latitude}&longitude=${o.longitude}&altitude=${o.altitude}`
const angleDiff = (a: number, b: number) => {
  const d = Math.abs(a - b) % 360
  return d > 180 ? 360 - d : d
}

let compared: Compared[] = []
let reference: RefPoint[] = []

beforeAll(async () => {
  const catalog = await embeddedCatalog()
  const app = appFor(catalog)
  const points: Compared[] = []
  for (const { observer, time } of NEARBY_CASES) {
    const { status, body } = await request(app, `/api/v1/satellites/nearby?${observerQuery(observer)}&time=${time}&frequency=${FREQUENCY_MHZ}`)
    expect(status).toBe(200)
    expect(body.metadata.frequency).toBe(FREQUENCY_MHZ)
    for (const s of body.satellites) points.push({ label: 'nearby', noradId: s.noradId, datetime: time, observer, point: s })
  }
  for (const c of PASS_CASES) {
    const { status, body } = await request(
      app,
      `/api/v1/satellites/${c.noradId}/passes?${observerQuery(c.observer)}&time=${T0}&days=${c.days}&elevation-threshold=${c.threshold}&frequency=${FREQUENCY_MHZ}`,
    )
    expect(status).toBe(200)
    for (const pass of body.data) {
      for (const kind of ['rise', 'culmination', 'set', 'brightest'] as const) {
        const point = pass[kind]
        if (point) points.push({ label: `pass ${kind}`, noradId: c.noradId, datetime: point.datetime, observer: c.observer, point })
      }
    }
  }
  // The first event of a live stream: at the app's clock (appFor stands still at 2026-05-31T00:00Z).
  const stream = await app.handle(new Request(`http://localhost/api/v1/satellites/25544/stream?${observerQuery(SYDNEY)}&frequency=${FREQUENCY_MHZ}`))
  expect(stream.status).toBe(200)
  const reader = stream.body!.getReader()
  let text = ''
  while (!/event: position\ndata: .*\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value)
  await reader.cancel()
  const event = JSON.parse(/event: position\ndata: (.*)\n/.exec(text)![1]!)
  points.push({ label: 'stream', noradId: 25544, datetime: event.datetime, observer: SYDNEY, point: event })

  const byCase = new Map<string, { noradId: number; observer: Observer; instants: string[]; indices: number[] }>()
  points.forEach((p, index) => {
    const key = `${p.noradId}|${p.observer.latitude}|${p.observer.longitude}`
    const entry = byCase.get(key) ?? { noradId: p.noradId, observer: p.observer, instants: [], indices: [] }
    entry.instants.push(p.datetime)
    entry.indices.push(index)
    byCase.set(key, entry)
  })
  const cases = [...byCase.values()]
  const answer = await runReference({ snapshot: SNAPSHOT, cases: cases.map((c) => ({ noradId: c.noradId, ...c.observer, instants: c.instants })) })
  reference = new Array(points.length)
  cases.forEach((c, k) => c.indices.forEach((index, j) => (reference[index] = answer.cases[k]!.at[j]!)))
  compared = points
}, 120_000)

describe('range rate and Doppler shift against Skyfield', () => {
  test('every look angle compared carries rangeRate and, with frequency, dopplerShiftHz', () => {
    expect(compared.filter((c) => c.label === 'nearby').length).toBeGreaterThan(800)
    expect(compared.filter((c) => c.label.startsWith('pass')).length).toBeGreaterThan(40)
    expect(compared.filter((c) => c.label === 'stream')).toHaveLength(1)
    for (const c of compared) {
      expect(typeof c.point.rangeRate).toBe('number')
      expect(typeof c.point.dopplerShiftHz).toBe('number')
    }
  })

  test('range rate within 1 cm/s of Skyfield, Doppler within f·1 cm/s/c, at the same place in the sky', () => {
    let worst = 0
    let worstDoppler = 0
    let approaching = 0
    let receding = 0
    for (const [k, c] of compared.entries()) {
      const ref = reference[k]!
      const where = `${c.label} ${c.noradId} at ${c.datetime}`
      expect({ where, elevation: Math.abs(c.point.elevation - ref.elevation) < TOL.angleDeg }).toEqual({ where, elevation: true })
      if (ref.elevation < 89.5) expect({ where, azimuth: angleDiff(c.point.azimuth, ref.azimuth) < TOL.angleDeg }).toEqual({ where, azimuth: true })
      if (c.point.range !== undefined) expect({ where, range: Math.abs(c.point.range - ref.range) < TOL.rangeKm }).toEqual({ where, range: true })
      const error = Math.abs(c.point.rangeRate - ref.rangeRate)
      expect({ where, rangeRate: c.point.rangeRate, skyfield: ref.rangeRate, ok: error < TOL.rangeRateKmS }).toMatchObject({ ok: true })
      const expectedShift = (-FREQUENCY_MHZ * 1e6 * ref.rangeRate) / C_KM_S
      const dopplerError = Math.abs(c.point.dopplerShiftHz! - expectedShift)
      expect({ where, ok: dopplerError <= (FREQUENCY_MHZ * 1e6 * TOL.rangeRateKmS) / C_KM_S }).toEqual({ where, ok: true })
      worst = Math.max(worst, error)
      worstDoppler = Math.max(worstDoppler, dopplerError)
      if (ref.rangeRate < -0.5) approaching++
      if (ref.rangeRate > 0.5) receding++
    }
    // Both signs, and shifts of kHz: the comparison is not of near-zero numbers.
    expect(approaching).toBeGreaterThan(100)
    expect(receding).toBeGreaterThan(100)
    console.log(`radio vs Skyfield: ${compared.length} look angles, range rate within ${(worst * 1000).toFixed(4)} m/s, Doppler at ${FREQUENCY_MHZ} MHz within ${worstDoppler.toFixed(4)} Hz`)
  })
})
