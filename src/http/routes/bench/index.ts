/**
 * Reference routes for `make bench`, mounted only with --bench-routes: the
 * plain satellite.js loop behind /nearby (SGP4 for every satellite on every
 * request, same parameters, same answer) and a hello-world route, so the
 * benchmark measures the real endpoints next to both in the same run.
 */
import { Elysia, t } from 'elysia'
import type { SatRec } from 'satellite.js'
import { type Catalog, fullSatrec } from '../../../domain/catalog/catalog.ts'
import { findNearby } from '../../../domain/nearby/reference.ts'
import type { NearbyQuery } from '../../../domain/nearby/selection.ts'
import { routeParams } from '../../plugins/params.ts'
import { instantOf, type ModuleContext } from '../common.ts'
import { nearbyFound, nearbyParams, nearbyResponse } from '../nearby/index.ts'
import { NearbyAnswerWriter } from '../nearby/answer-writer.ts'

const plainRoute = routeParams({ query: nearbyParams })

export function benchModule(context: ModuleContext) {
  const { store, clock } = context
  /**
   * SGP4 records as satellite.js makes them, per catalogue: without the
   * catalogue's own economies (compact near-earth records, the resonance
   * integrator's head start), so the plain loop is satellite.js as it comes.
   */
  const plainRecords = new WeakMap<Catalog, SatRec[]>()
  const plainSatrecAt = (catalog: Catalog): ((i: number) => SatRec) => {
    let records = plainRecords.get(catalog)
    if (records === undefined) {
      records = catalog.satellites.map((s) => fullSatrec(s.elements))
      plainRecords.set(catalog, records)
    }
    return (i) => records[i]!
  }
  /** The plain loop: SGP4 for every satellite of the catalogue on every request. */
  const plainLoop = (catalog: Catalog, query: NearbyQuery) => findNearby(catalog, query, plainSatrecAt(catalog))

  const writer = new NearbyAnswerWriter()

  return new Elysia({ name: 'bench', prefix: '/bench' })
    .get('/hello', () => 'hello', { response: t.String(), detail: { hide: true } })
    .get(
      '/plain-nearby',
      (ctx) => {
        const { query } = plainRoute.read(ctx.query)
        // Written as /nearby writes its answer: the two differ in the search only.
        return nearbyResponse(context, writer, nearbyFound(plainLoop, store.current, query, instantOf(query.time, clock))) as never
      },
      { ...plainRoute.hooks, detail: { hide: true } },
    )
}
