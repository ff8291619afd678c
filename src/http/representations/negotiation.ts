/** Content negotiation: the encoding of an answer from the client's Accept-Encoding. */

export type Encoding = 'br' | 'gzip' | 'identity'

/** Bodies below this size are not worth compressing. */
export const MIN_COMPRESS_BYTES = 1024

/** The best encoding the client accepts (brotli, then gzip), honouring `q=0`; identity for a body under MIN_COMPRESS_BYTES. */
export function chooseEncoding(acceptEncoding: string | null, size: number): Encoding {
  if (!acceptEncoding || size < MIN_COMPRESS_BYTES) return 'identity'
  const accepted = new Map<string, number>()
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.toLowerCase().split(';')
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean)
    accepted.set(name!.trim(), q ? Number(q[1]) : 1)
  }
  const weight = (name: string) => accepted.get(name) ?? (accepted.has('*') ? accepted.get('*')! : 0)
  // The higher weight wins; brotli on a tie (smaller bodies).
  const br = weight('br')
  const gz = weight('gzip')
  if (br > 0 && br >= gz) return 'br'
  if (gz > 0) return 'gzip'
  return 'identity'
}
