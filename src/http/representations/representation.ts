/** A representation: an answer's body, content type and strong ETag, made once per catalogue version and key. */
import { contentEtag, strongEtag } from './etag.ts'

/**
 * A body read as a stream, never whole: a Blob, or pieces of other bodies
 * (`piecedBody`) that are joined only chunk by chunk as they are sent.
 */
export interface StreamedBody {
  readonly size: number
  stream(): ReadableStream<Uint8Array>
}

export interface Representation {
  /** Strong validator of the identity body; encoded variants append the encoding (etag.ts). */
  etag: string
  contentType: string
  /**
   * The identity body. A Blob, not a typed array: a Response made from a Blob
   * sends the Blob's bytes, where one made from a typed array copies them into
   * every answer (megabytes per answer for the list, kept until a collection).
   * Or pieces of another body (a search cut from the list), sent as a stream.
   */
  body: Blob | StreamedBody
  /** The HTTP status of the answer; 200 unless said (the feed's "No GP data found" is a 404). */
  status?: number
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8'

/** A JSON representation with a strong ETag derived from `version` and `key`. */
export function jsonRepresentation(version: string, key: string, value: unknown): Representation {
  return textRepresentation(version, key, JSON_CONTENT_TYPE, JSON.stringify(value))
}

/** A representation of any text (TLE, CSV, JSON already serialised) with a strong ETag from `version` and `key`. */
export function textRepresentation(version: string, key: string, contentType: string, text: string): Representation {
  return blobRepresentation(version, key, contentType, new Blob([text]))
}

/** A representation of bytes (a file embedded in the executable, a pieced body) with a strong ETag from `version` and `key`. */
export function blobRepresentation(version: string, key: string, contentType: string, body: Blob | StreamedBody): Representation {
  return { etag: strongEtag(version, key), contentType, body }
}

/** A text representation whose strong ETag is a hash of the text itself (files built into the executable). */
export function contentRepresentation(text: string, contentType: string): Representation {
  return { etag: contentEtag(text), contentType, body: new Blob([text]) }
}

/** Above this size a body is large: building or compressing one is followed by a garbage collection. */
export const LARGE_BODY_BYTES = 1 << 20
