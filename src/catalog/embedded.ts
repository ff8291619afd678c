/** The snapshot compiled into the executable (data/snapshot.json, written by `make snapshot`). */
import embeddedSnapshotPath from '../../data/snapshot.json' with { type: 'file' }
import { fromBundle, type SnapshotData } from './snapshot.ts'

export async function loadEmbeddedSnapshot(): Promise<SnapshotData> {
  // `with { type: 'file' }` makes the import a path; TypeScript types it as the JSON content.
  const path = embeddedSnapshotPath as unknown as string
  return fromBundle(await Bun.file(path).json(), 'the embedded snapshot')
}
