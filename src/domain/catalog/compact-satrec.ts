/** Compact near-earth SGP4 records: the speed-up beside satellite.js's full record (catalog.ts fullSatrec), which must propagate the same (test/domain/catalog/satrec.test.ts). */
import type { SatRec } from 'satellite.js'

/**
 * A near-earth record with only what satellite.js's propagate and sgp4 read or
 * write for it: without the ~55 deep-space terms (read only when
 * `method === 'd'`) and the fields only initialisation uses (the TLE's own
 * values: number, epoch year and day, mean-motion derivatives, Kozai mean
 * motion; semi-major axis, apogee, perigee). A literal in one order, so every
 * near-earth record shares one shape and keeps its fields inline: about a third
 * of the memory of the full record (~1 KB × the catalogue); the same results,
 * bit for bit (tested over the whole catalogue). Deep-space records stay whole.
 */
export function compactSatrec(r: SatRec): SatRec {
  if (r.method !== 'n') return r
  const near = {
    error: r.error,
    bstar: r.bstar,
    inclo: r.inclo,
    nodeo: r.nodeo,
    ecco: r.ecco,
    argpo: r.argpo,
    mo: r.mo,
    no: r.no,
    jdsatepoch: r.jdsatepoch,
    isimp: r.isimp,
    method: r.method,
    aycof: r.aycof,
    con41: r.con41,
    cc1: r.cc1,
    cc4: r.cc4,
    cc5: r.cc5,
    d2: r.d2,
    d3: r.d3,
    d4: r.d4,
    delmo: r.delmo,
    eta: r.eta,
    argpdot: r.argpdot,
    omgcof: r.omgcof,
    sinmao: r.sinmao,
    t: r.t,
    t2cof: r.t2cof,
    t3cof: r.t3cof,
    t4cof: r.t4cof,
    t5cof: r.t5cof,
    x1mth2: r.x1mth2,
    x7thm1: r.x7thm1,
    mdot: r.mdot,
    nodedot: r.nodedot,
    xlcof: r.xlcof,
    xmcof: r.xmcof,
    nodecf: r.nodecf,
    gsto: r.gsto,
    operationmode: r.operationmode,
    tempa: r.tempa,
  }
  return near as SatRec
}
