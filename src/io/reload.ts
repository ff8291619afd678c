/**
 * SIGHUP: reloads --snapshot from disk. The file competes with the catalogue
 * held by the overlay rule, and a new catalogue is swapped in in one step; a
 * file that cannot be read or holds nothing valid changes nothing, nor does a
 * group's file cut short or holding fewer than half its satellites.
 */
import type { Catalog } from '../domain/catalog/catalog.ts'
import { planReload } from '../domain/catalog/reload.ts'
import type { CatalogStore } from '../domain/catalog/store.ts'
import { log } from './log.ts'
import { logRefusedSets, warnIfStale } from './refresh.ts'
import { loadSnapshotPath } from './snapshot-files.ts'

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Reloads `path` into `store`; `onSwap` is told the catalogue swapped in, if any. */
export async function reloadSnapshot(store: CatalogStore, path: string, onSwap: (catalog: Catalog) => void): Promise<void> {
  let file
  try {
    file = await loadSnapshotPath(path)
  } catch (error) {
    log.error('reload: --snapshot cannot be used; nothing changed', { path, reason: message(error) })
    return
  }
  const plan = planReload(store.current, file, Date.now())
  if (!plan.ok) {
    log.error('reload: --snapshot cannot be used; nothing changed', {
      path,
      reason: plan.error,
      ...(Object.keys(plan.unreadableGroups).length > 0 ? { unreadableGroups: plan.unreadableGroups } : {}),
      ...(plan.examples.length > 0 ? { examples: plan.examples } : {}),
    })
    return
  }
  if (plan.warning) log.warn(plan.warning.message, plan.warning.fields)
  if (Object.keys(plan.unreadableGroups).length > 0) {
    log.warn('reload: files of --snapshot that cannot be read; their groups keep what they had', { path, unreadableGroups: plan.unreadableGroups })
  }
  if (Object.keys(plan.refusedGroups).length > 0) {
    log.warn('reload: groups of --snapshot not taken; each keeps what it had (a new one is not added)', { path, refusedGroups: plan.refusedGroups })
  }
  const skipped = Object.values(plan.invalidByGroup).reduce((a, b) => a + b, 0)
  if (skipped > 0) log.warn('reload: skipped invalid element sets', { path, count: skipped, byGroup: plan.invalidByGroup, examples: plan.examples })
  logRefusedSets(log, 'reload', plan.refused, { path })
  if (!plan.catalog) {
    const notTaken = Object.keys(plan.refusedGroups).length > 0
    log.info(notTaken ? 'reload: --snapshot brings nothing new that can be taken; nothing swapped' : 'reload: --snapshot brings nothing new; nothing swapped', { path, ...plan.changes })
    return
  }
  store.swap(plan.catalog)
  log.info('reload: catalogue replaced', { path, ...plan.changes })
  warnIfStale(store.current, Date.now())
  onSwap(store.current)
}

/**
 * Installs the SIGHUP handler: one reload at a time; without --snapshot there
 * is nothing to reload. `store` gives the store (undefined while a supervisor
 * waits for its first catalogue).
 */
export function reloadOnSighup(store: () => CatalogStore | undefined, path: string | null, onSwap: (catalog: Catalog) => void): void {
  let reloading = false
  process.on('SIGHUP', () => {
    if (!path) {
      log.warn('SIGHUP: there is no --snapshot to reload; nothing changed')
      return
    }
    const current = store()
    if (!current) {
      log.warn('SIGHUP: the instance is still starting; nothing reloaded', { path })
      return
    }
    if (reloading) {
      log.warn('SIGHUP: a reload is already running; this one is ignored', { path })
      return
    }
    reloading = true
    void reloadSnapshot(current, path, onSwap).finally(() => {
      reloading = false
    })
  })
}
