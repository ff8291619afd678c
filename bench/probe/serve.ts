/**
 * One server of the workers probe (bench/workers-probe.ts): the service's app
 * over the embedded catalogue on a shared port (reusePort). Runs as a process
 * (argv: port) or as a Worker thread (workerData-less: the port comes in a message).
 */
import { isMainThread, parentPort } from 'node:worker_threads'
import { createApp } from '../../src/http/app.ts'
import { CatalogStore } from '../../src/domain/catalog/store.ts'
import { catalogFromSnapshot } from '../../src/domain/catalog/snapshot.ts'
import { loadEmbeddedSnapshot } from '../../src/io/embedded.ts'
import { NO_AGE_LIMIT } from '../../src/domain/orbit/validity.ts'

async function serve(port: number): Promise<void> {
  const catalog = catalogFromSnapshot(await loadEmbeddedSnapshot(), 'embedded', Date.now()).catalog
  const store = new CatalogStore(catalog, NO_AGE_LIMIT)
  for (let i = 0; i < store.current.size; i++) store.current.satrecAt(i)
  const app = createApp({ store, benchRoutes: true, warm: true, checkResponses: false })
  app.listen({ port, hostname: '127.0.0.1', reusePort: true, development: false })
  setTimeout(() => Bun.gc(true), 500)
}

if (isMainThread) {
  await serve(Number(process.argv[2]))
  console.log('ready')
} else {
  parentPort!.once('message', async (port: number) => {
    await serve(port)
    parentPort!.postMessage('ready')
  })
}
