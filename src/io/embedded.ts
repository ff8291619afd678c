/**
 * The snapshot compiled into the executable: data/prepared.bin, which `make`
 * derives from data/snapshot.json (written by `make snapshot`) with
 * scripts/prepare.ts: parsed, validated and made into its catalogue at build
 * time (src/domain/catalog/prepared.ts).
 */
import preparedPath from '../../data/prepared.bin' with { type: 'file' }
import { snapshotFromPrepared } from '../domain/catalog/prepared.ts'
import type { GroupSet } from '../domain/catalog/groups.ts'

export async function loadEmbeddedSnapshot(): Promise<GroupSet> {
  // `with { type: 'file' }` makes the import a path.
  return snapshotFromPrepared(new Uint8Array(await Bun.file(preparedPath).arrayBuffer()), 'the embedded snapshot')
}
