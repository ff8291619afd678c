/**
 * The web page: `/` and its assets under `/app/`. The page is built from
 * src/web while Bun bundles this file (a macro, see src/web/build/assets.ts),
 * so the executable carries it with nothing to fetch at run time. Every answer
 * is compressed once per encoding (gzip, or brotli where accepted) and carries
 * an ETag; content-hashed assets are cached for good, the page and the group
 * index are revalidated.
 */
import { Elysia } from 'elysia'
import type { Catalog } from '../../../domain/catalog/catalog.ts'
import { ApiError } from '../../plugins/errors.ts'
import { RepresentationCache } from '../../representations/cache.ts'
import { contentRepresentation } from '../../representations/representation.ts'
import { webAssets } from '../../../web/build/assets.ts' with { type: 'macro' }
import type { ModuleContext } from '../common.ts'
import { findModule } from './find.ts'

const ASSETS = webAssets()

/**
 * Only this origin, nothing inline: the page has no inline script or style,
 * its SVG is drawn through the DOM, and it fetches the API by relative URLs.
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')


/** Group → its satellite numbers, ascending and delta-encoded (the whole catalogue packs into a few KB). */
export function groupIndex(catalog: Catalog): { groups: Record<string, number[]> } {
  const members = new Map<string, number[]>()
  for (const satellite of catalog.satellites) {
    for (const group of satellite.groups) {
      let ids = members.get(group)
      if (!ids) members.set(group, (ids = []))
      ids.push(satellite.noradId)
    }
  }
  const groups: Record<string, number[]> = {}
  for (const name of [...members.keys()].sort()) {
    let previous = 0
    groups[name] = members
      .get(name)!
      .sort((a, b) => a - b)
      .map((id) => {
        const delta = id - previous
        previous = id
        return delta
      })
  }
  return { groups }
}

/** The static answers are owned by this object for the life of the process. */
const BUILT = Object.freeze({})
const byName: ReadonlyMap<string, (typeof ASSETS.files)[number]> = new Map(ASSETS.files.map((f) => [f.name, f]))

export function webModule({ store, compression }: Pick<ModuleContext, 'store' | 'compression'>) {
  const page = new RepresentationCache<object>(compression, { cacheControl: 'no-cache' })
  const hashed = new RepresentationCache<object>(compression, { cacheControl: 'public, max-age=31536000, immutable' })
  const plain = new RepresentationCache<object>(compression, { cacheControl: 'public, max-age=86400' })
  const groups = new RepresentationCache<Catalog>(compression, { cacheControl: 'no-cache' })
  const hide = { detail: { hide: true } }

  return new Elysia({ name: 'web' })
    .use(findModule({ store }))
    .get(
      '/',
      ({ request, set }) => {
        set.headers['content-security-policy'] = PAGE_CSP
        return page.respond(request, set, page.get(BUILT, 'index.html', () => contentRepresentation(ASSETS.html, 'text/html; charset=utf-8')))
      },
      hide,
    )
    .get(
      '/app/groups.json',
      ({ request, set }) => {
        const catalog = store.current
        return groups.respond(
          request,
          set,
          groups.get(catalog, 'groups', () =>
            contentRepresentation(JSON.stringify(groupIndex(catalog)), 'application/json; charset=utf-8'),
          ),
        )
      },
      hide,
    )
    .get(
      '/app/:file',
      ({ params, request, set }) => {
        const asset = byName.get(params.file)
        if (!asset) throw new ApiError(404, `no such path: /app/${params.file}`)
        const cache = asset.name === 'icon.svg' ? plain : hashed
        return cache.respond(request, set, cache.get(BUILT, asset.name, () => contentRepresentation(asset.text, asset.contentType)))
      },
      hide,
    )
}
