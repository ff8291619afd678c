/**
 * Reference routes for `make bench`, mounted only with --bench-routes: the
 * plain satellite.js loop behind /nearby (SGP4 for every satellite on every
 * request, same parameters, same answer) and a hello-world route, so the
 * benchmark measures the real endpoints next to both in the same run.
 */
import { Elysia, t } from 'elysia'
import { findNearby } from '../../orbit/nearby.ts'
import { routeParams } from '../../plugins/params.ts'
import { instantOf, type ModuleContext } from '../common.ts'
import { nearbyAnswer, nearbyParams } from '../nearby/index.ts'

const plainRoute = routeParams({ query: nearbyParams })

export function benchModule({ store, clock }: ModuleContext) {
  return new Elysia({ name: 'bench', prefix: '/bench' })
    .get('/hello', () => 'hello', { response: t.String(), detail: { hide: true } })
    .get(
      '/plain-nearby',
      (ctx) => {
        const { query } = plainRoute.read(ctx.query)
        return nearbyAnswer(findNearby, store.current, query, instantOf(query.time, clock))
      },
      { ...plainRoute.hooks, detail: { hide: true } },
    )
}
