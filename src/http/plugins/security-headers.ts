/**
 * Response headers every answer carries (`X-Content-Type-Options: nosniff`,
 * `Referrer-Policy`), and a strict Content-Security-Policy on HTML pages that
 * do not bring their own.
 */
import { Elysia } from 'elysia'

/**
 * For the pages this service serves (the docs page: /openapi/scalar.js, its
 * configuration in a data attribute, the spec from /openapi/json). Nothing
 * from other origins; styles inline because the docs UI injects them; data:
 * for the empty favicon and inline images; no framing, no forms, no <base>.
 */
export const HTML_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export const REFERRER_POLICY = 'no-referrer'

const isHtml = (response: Response) => (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/html')

export function securityHeaders() {
  return new Elysia({ name: 'security-headers' })
    .onRequest(({ set }) => {
      set.headers['x-content-type-options'] = 'nosniff'
      set.headers['referrer-policy'] = REFERRER_POLICY
    })
    .onAfterHandle({ as: 'global' }, ({ response }) => {
      // A page with a policy of its own (the web app) keeps it.
      if (response instanceof Response && isHtml(response) && !response.headers.has('content-security-policy')) {
        response.headers.set('content-security-policy', HTML_CONTENT_SECURITY_POLICY)
        response.headers.set('x-frame-options', 'DENY')
      }
    })
}
