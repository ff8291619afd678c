/**
 * Strong ETags: one per representation and per encoding of it, and the
 * If-None-Match test against the one about to be sent.
 */
import type { Encoding } from './negotiation.ts'

/** The strong ETag of the answer named `key` in catalogue version `version`. */
export function strongEtag(version: string, key: string): string {
  return `"${Bun.hash(`${version}:${key}`).toString(36)}"`
}

/** The strong ETag of a text: a hash of its content. */
export function contentEtag(text: string): string {
  return `"${Bun.hash(text).toString(36)}"`
}

/** The ETag of `encoding`'s body: the identity ETag, or it with `-gzip`/`-br` appended inside the quotes. */
export function encodedEtag(etag: string, encoding: Encoding): string {
  return encoding === 'identity' ? etag : `${etag.slice(0, -1)}-${encoding}"`
}

/**
 * Whether If-None-Match names `etag` (or is `*`): the ETag of the encoding
 * about to be sent. Each encoding is its own representation with its own ETag,
 * so a client (or a cache) holding the gzip body that now asks for identity
 * gets the identity body, not a 304 for bytes it does not have.
 */
export function notModified(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false
  return ifNoneMatch.split(',').some((tag) => {
    const bare = tag.trim().replace(/^W\//, '')
    return bare === '*' || bare === etag
  })
}
