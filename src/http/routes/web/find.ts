/** GET /app/find.json?q=: the page's search box over the whole catalogue (name, catalog number, international designator, common names). */
import { Elysia } from 'elysia'
import { findSatellites } from '../../../domain/catalog/find.ts'
import { objectIdOf } from '../../../domain/catalog/omm.ts'
import { routeParams } from '../../plugins/params.ts'
import type { ModuleContext } from '../common.ts'

/** Suggestions per answer. */
export const FIND_LIMIT = 12

const findRoute = routeParams({
  query: { q: { type: 'text', maxLength: 100, required: true, description: 'A catalog number, an international designator (1998-067A, 98067A), or part of a name or common name' } },
})

export function findModule({ store }: Pick<ModuleContext, 'store'>) {
  return new Elysia({ name: 'web-find' }).get(
    '/app/find.json',
    ({ query: raw, set }) => {
      const { query } = findRoute.read(raw)
      set.headers['cache-control'] = 'no-cache'
      const catalog = store.current
      return {
        data: findSatellites(catalog, query.q, FIND_LIMIT).map(({ satellite, match, commonName }) => ({
          noradId: satellite.noradId,
          name: satellite.name,
          designator: objectIdOf(satellite.elements.intlDesignator),
          match,
          ...(commonName === undefined ? {} : { commonName }),
        })),
      }
    },
    { ...findRoute.hooks, detail: { hide: true } },
  )
}
