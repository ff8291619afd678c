/** Test helpers: the embedded catalogue (loaded once per test file) and an app over it. */
import { createApp } from '../../src/http/app.ts'
import type { Catalog } from '../../src/domain/catalog/catalog.ts'
import { loadEmbeddedSnapshot } from '../../src/io/embedded.ts'
import { catalogFromSnapshot } from '../../src/domain/catalog/snapshot.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'

let embedded: Catalog | undefined

/** The real snapshot compiled into the service (data/snapshot.json). */
export async function embeddedCatalog(): Promise<Catalog> {
  embedded ??= catalogFromSnapshot(await loadEmbeddedSnapshot(), 'embedded', Date.now()).catalog
  return embedded
}

/** An app over `catalog` whose clock stands still at `nowMs`. */
export function appFor(catalog: Catalog, nowMs = Date.UTC(2026, 4, 31)) {
  return createApp({ store: new CatalogStore(catalog), clock: () => nowMs })
}

/** GET (or another method) through app.handle. */
export async function request(app: ReturnType<typeof createApp>, path: string, init?: RequestInit) {
  const response = await app.handle(new Request(`http://localhost${path}`, init))
  const text = await response.text()
  let body: any = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = text
  }
  return { status: response.status, headers: response.headers, body, text }
}
