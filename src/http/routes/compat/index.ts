/**
 * The routes of other satellite APIs that programs already call (N2YO, Open
 * Notify, wheretheiss.at), answered from sattrack's own data and engine, so
 * that those programs work against this service by changing one base URL.
 * Each family is switched on or off with `--compat` (docs/compat.md).
 */
import { Elysia } from 'elysia'
import type { NearbyEngine } from '../../../domain/nearby/engine.ts'
import type { ModuleContext } from '../common.ts'
import type { CompatFamily } from './families.ts'
import { n2yoModule } from './n2yo.ts'
import { openNotifyModule } from './open-notify.ts'
import { whereTheIssModule } from './wheretheiss.ts'

const TAGS: Record<CompatFamily, string> = {
  n2yo: 'N2YO REST v1 (`/rest/v1/satellite/…`): tle, positions, visualpasses, radiopasses, above. Any apiKey, or none, is accepted; no quota. Errors are `{"error"}`.',
  'open-notify': 'Open Notify: `/iss-now.json`, `/iss-pass.json` (revived), `/astros.json` (unknown here). JSONP with `?callback=`. Errors are `{"message": "failure", "reason"}`.',
  wheretheiss: 'wheretheiss.at v1 (`/v1/…`): satellites, positions, TLEs, coordinates. Errors are `{"error", "status"}`.',
}

/** The OpenAPI sections of the families mounted. */
export function compatTags(families: readonly CompatFamily[]) {
  return families.map((name) => ({ name, description: `Compatible with ${TAGS[name]} Computed by this service's engine, under its rules (element age, decay): see docs/compat.md.` }))
}

export function compatModule(context: ModuleContext, { families, engine }: { families: readonly CompatFamily[]; engine: NearbyEngine }) {
  const app = new Elysia({ name: 'compat' })
  if (families.includes('n2yo')) app.use(n2yoModule(context, engine))
  if (families.includes('open-notify')) app.use(openNotifyModule(context))
  if (families.includes('wheretheiss')) app.use(whereTheIssModule(context))
  return app
}
