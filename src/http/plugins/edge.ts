/**
 * The request line and the Host header as the service reads them, whatever a
 * client sends.
 *
 * The path always comes from the request line. Bun builds `request.url` from
 * the Host header and the request target: `http://<host><target>` when the
 * Host makes a valid URL, and the bare target (`/path?query`) when there is no
 * Host (HTTP/1.0), an empty one, or one that cannot be part of a URL (`a b`,
 * `a@b`). So the path is what follows the authority of an absolute URL, or the
 * URL itself when it is relative; never a guess at an offset.
 *
 * A Host that is present and not empty must be `host[:port]` (RFC 9110 7.2):
 * a reg-name, an IPv4 address or a bracketed IP literal, and a port of at most
 * 65535. Anything else is a 400, whatever the path.
 *
 * Methods: Bun's parser hands over the standard methods and the WebDAV ones
 * (PROPFIND, MKCOL…). The service reads with GET, HEAD and OPTIONS; a method
 * HTTP does not define for this kind of resource (not in STANDARD_METHODS)
 * is a 501 on an unknown path and a 405 on a known one.
 */
import { shown } from '../../web/instant.ts'

/** Headers of every answer a script on another origin may read besides the CORS-safelisted ones: for conditional requests and backing off. */
export const EXPOSED_HEADERS = ['ETag', 'Retry-After'] as const

/** The methods RFC 9110 defines, plus PATCH (RFC 5789): a server recognises them (405/404); others are 501. */
export const STANDARD_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'])

/** Whether `url` is absolute (`http://…` or `https://…`), as Bun makes it from a valid Host. */
export function isAbsoluteUrl(url: string): boolean {
  return url.startsWith('http://') || url.startsWith('https://')
}

/** Offset of the request target (the first `/` after the authority) in `url`; `url.length` when there is none. */
function targetStart(url: string): number {
  if (!isAbsoluteUrl(url)) return 0
  const afterScheme = url.indexOf('//') + 2
  const slash = url.indexOf('/', afterScheme)
  const query = url.indexOf('?', afterScheme)
  if (slash < 0) return query < 0 ? url.length : query
  return query >= 0 && query < slash ? query : slash
}

/** The request target (path and query, as sent) of a request URL, absolute or not. */
export function requestTarget(url: string): string {
  const target = url.slice(targetStart(url))
  return target === '' || target.startsWith('?') ? `/${target}` : target
}

/** The path of the request line (no query string), as sent (percent-encoded). */
export function requestPath(url: string): string {
  const target = requestTarget(url)
  const q = target.indexOf('?')
  return q < 0 ? target : target.slice(0, q)
}

/**
 * A path parameter's value as a router gave it, or null when it stands for a
 * segment that is not valid percent-encoding of UTF-8 (`%ZZ`, `%FF`): Elysia's
 * router gives such a segment as null, Bun's with U+FFFD in place of the bytes
 * (which is not what the client sent), so the request's own path is read to tell.
 */
export function readableSegment(value: string | null | undefined, url: string): string | null {
  if (value === null || value === undefined) return null
  if (!value.includes('\uFFFD')) return value
  const path = requestPath(url)
  return path.includes('%') && percentDecoded(path) === null ? null : value
}

/** What a 400 says of a URL whose path has a segment that is not valid percent-encoding (of UTF-8): the first such segment, quoted as sent. */
export function undecodableSegmentNote(url: string): string {
  const segment = requestPath(url).split('/').find((s) => s.includes('%') && percentDecoded(s) === null)
  return `got ${segment === undefined ? 'a path segment' : `"${shown(segment)}"`}, which is not valid percent-encoding`
}

/** `text` with its percent-escapes decoded, or null when they are not valid percent-encoding of UTF-8. */
export function percentDecoded(text: string): string | null {
  try {
    return decodeURIComponent(text)
  } catch {
    return null
  }
}

const REG_NAME_OR_IPV4 = /^[A-Za-z0-9\-._~%!$&'()*+,;=]+$/
const IP_LITERAL = /^\[[0-9A-Fa-f:.]+\]$|^\[v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+\]$/

/** Why a Host header value is not `host[:port]`, or null when it is. An empty value is allowed (RFC 9112 3.2). */
export function hostProblem(host: string): string | null {
  if (host === '') return null
  const portSep = host.lastIndexOf(':')
  const hasPort = portSep >= 0 && host.indexOf(']', portSep) < 0
  const name = hasPort ? host.slice(0, portSep) : host
  const port = hasPort ? host.slice(portSep + 1) : ''
  if (hasPort && port !== '' && (!/^\d{1,5}$/.test(port) || Number(port) > 65535)) return 'its port must be a number from 0 to 65535'
  if (!(REG_NAME_OR_IPV4.test(name) || IP_LITERAL.test(name))) return 'it must be a host name or address, optionally followed by :port'
  return null
}

/** How a refusal quotes a client-sent value, shared with the page (src/web/instant.ts). */
export { shown }
