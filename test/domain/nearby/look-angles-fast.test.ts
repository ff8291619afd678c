/** lookAnglesFrom (src/domain/nearby/look-angles-fast.ts), the engine's look angles: satellite.js's own (sky.ts lookAngles), to the bit. */
import { expect, test } from 'bun:test'
import fc from 'fast-check'
import { lookAnglesFrom } from '../../../src/domain/nearby/look-angles-fast.ts'
import { lookAngles } from '../../../src/domain/orbit/sky.ts'
import { geodeticToEcf } from 'satellite.js'
import { toGeodeticRad } from '../../../src/domain/orbit/sky.ts'

test('equals satellite.js ecfToLookAngles for any observer and any point from the ground to beyond the Moon', () => {
  const observer = fc.record({
    latitudeDeg: fc.double({ min: -90, max: 90, noNaN: true }),
    longitudeDeg: fc.double({ min: -180, max: 180, noNaN: true }),
    altitudeM: fc.double({ min: -1000, max: 100_000, noNaN: true }),
  })
  const component = fc.double({ min: -500_000, max: 500_000, noNaN: true })
  fc.assert(
    fc.property(observer, component, component, component, fc.double({ min: 0, max: 2 * Math.PI, noNaN: true }), (site, x, y, z, gmst) => {
      // A point in TEME, its Earth-fixed topocentric vector as the engine forms it.
      const o = geodeticToEcf(toGeodeticRad(site))
      const cosG = Math.cos(gmst)
      const sinG = Math.sin(gmst)
      const dx = x * cosG + y * sinG - o.x
      const dy = -x * sinG + y * cosG - o.y
      const dz = z - o.z
      if (dx === 0 && dy === 0 && dz === 0) return
      expect(lookAnglesFrom(site)(dx, dy, dz)).toEqual(lookAngles(site, { x, y, z }, gmst))
    }),
    { numRuns: 5_000 },
  )
})
