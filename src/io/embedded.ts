/**
 * The snapshot compiled into the executable: data/prepared.json, which
 * `make` derives from data/snapshot.json (written by `make snapshot`) with
 * scripts/prepare.ts, parsed and validated at build time.
 */
import preparedPath from '../../data/prepared.json' with { type: 'file' }
import { snapshotFromPrepared } from '../domain/catalog/prepared.ts'
import type { GroupSet } from '../domain/catalog/groups.ts'

export async function loadEmbeddedSnapshot(): Promise<GroupSet> {
  // `with { type: 'file' }` makes the import a path; TypeScript types it as the JSON content.
  const path = preparedPath as unknown as string
  return snapshotFromPrepared(await Bun.file(path).json(), 'the embedded snapshot')
}
