/** The docs page's script (Scalar's standalone bundle, 4 MB): a file compiled into the executable, read when it is sent. */
import scalarBundlePath from '../../node_modules/@scalar/api-reference/dist/browser/standalone.js' with { type: 'file' }

/** The bundle as a Blob: Bun reads the file as the answer is sent, never whole into the heap. */
export function scalarBundle(): Blob {
  return Bun.file(scalarBundlePath)
}
