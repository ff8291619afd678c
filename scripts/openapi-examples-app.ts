/**
 * The app the OpenAPI examples are recorded from and checked against
 * (scripts/openapi-examples.ts, test/http/plugins/openapi-examples.test.ts):
 * the embedded snapshot, loaded, started and asked at one fixed instant.
 */
import { createApp } from '../src/http/app.ts'
import { catalogFromSnapshot } from '../src/domain/catalog/snapshot.ts'
import { CatalogStore } from '../src/domain/catalog/store.ts'
import { loadEmbeddedSnapshot } from '../src/io/embedded.ts'

/** Half a day after the snapshot was taken: every satellite of it has a position. */
export const EXAMPLES_INSTANT = '2026-05-31T00:00:00Z'

export async function examplesApp() {
  const nowMs = Date.parse(EXAMPLES_INSTANT)
  const { catalog } = catalogFromSnapshot(await loadEmbeddedSnapshot(), 'embedded', nowMs)
  return createApp({ store: new CatalogStore(catalog), clock: () => nowMs, startedAtMs: nowMs })
}
