/**
 * CPU of the day windows' candidate search (day-windows.ts windowCandidates) per
 * request, least and median of rounds, at the one-off instants near the epoch
 * and observers of bench/random-observer.lua, with how many it keeps.
 *
 *   bun bench/probe/window-candidates.ts
 */
import { geodeticToEcf } from 'satellite.js'
import { catalogFromSnapshot } from '../../src/domain/catalog/snapshot.ts'
import { windowCandidates, type WindowObserver } from '../../src/domain/nearby/day-windows.ts'
import { siderealTimeRad } from '../../src/domain/orbit/position.ts'
import { toGeodeticRad } from '../../src/domain/orbit/sky.ts'
import { NO_AGE_LIMIT } from '../../src/domain/orbit/validity.ts'
import { loadEmbeddedSnapshot } from '../../src/io/embedded.ts'

const catalog = catalogFromSnapshot(await loadEmbeddedSnapshot(), 'embedded', Date.now()).catalog.withPolicy(NO_AGE_LIMIT)
const EPOCH_MS = 1_780_181_400_000
const RAD = Math.PI / 180
let seed = 12345
const random = () => ((seed = (seed * 16_807) % 2_147_483_647) - 1) / 2_147_483_646
/** As the engine makes it (engine.ts, one-off branch), for a threshold of 10°. */
function observerAt(latitudeDeg: number, longitudeDeg: number, instantMs: number): WindowObserver {
  const gmst = siderealTimeRad(new Date(instantMs))
  const site = toGeodeticRad({ latitudeDeg, longitudeDeg, altitudeM: 0 })
  const o = geodeticToEcf(site)
  const [cosG, sinG] = [Math.cos(gmst), Math.sin(gmst)]
  const rho = Math.hypot(o.x, o.y, o.z)
  const ux = Math.cos(site.latitude) * Math.cos(site.longitude)
  const uy = Math.cos(site.latitude) * Math.sin(site.longitude)
  const tilt = Math.abs(latitudeDeg - Math.asin(o.z / rho) / RAD)
  const scanMin = 10 - 0.06
  return {
    x: (o.x * cosG - o.y * sinG) / rho,
    y: (o.x * sinG + o.y * cosG) / rho,
    z: o.z / rho,
    radiusKm: rho,
    minElevation: (scanMin - tilt - 0.05) * RAD,
    ux: ux * cosG - uy * sinG,
    uy: ux * sinG + uy * cosG,
    uz: Math.sin(site.latitude),
    minElevationDeg: scanMin,
  }
}
const N = 2000
const cases = Array.from({ length: N }, () => {
  const latitude = (Math.asin(2 * random() - 1) * 180) / Math.PI
  const longitude = random() * 360 - 180
  const ms = EPOCH_MS + Math.floor((2 * random() - 1) * 20 * 86_400_000)
  return { ms, observer: observerAt(latitude, longitude, ms) }
})
const out = new Int32Array(catalog.size)
// Every window of the 40 days made first.
let kept = 0
for (const c of cases) kept += windowCandidates(catalog, c.ms, c.observer, out).length
const times: number[] = []
for (let r = 0; r < 40; r++) {
  const started = process.cpuUsage()
  for (let k = 0; k < 100; k++) {
    const c = cases[(r * 100 + k) % N]!
    windowCandidates(catalog, c.ms, c.observer, out)
  }
  const used = process.cpuUsage(started)
  times.push((used.user + used.system) / 100)
}
times.sort((a, b) => a - b)
console.log(`windowCandidates: least ${times[0]!.toFixed(0)} µs, median ${times[20]!.toFixed(0)} µs per request; ${(kept / N).toFixed(1)} kept`)
