/** Errors as values with a status, one error body everywhere, 404 and 405. */
import { Elysia } from 'elysia'
import { Abandoned, Busy } from '../../io/heavy-work.ts'
import { log } from '../../io/log.ts'
import { requestPath, STANDARD_METHODS, shown } from './edge.ts'

/** An error meant for the client: its status and a message that names the parameter and the rule. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Headers the answer carries (Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }
}

export interface ErrorBody {
  message: string
  statusCode: number
}

export function errorBody(status: number, message: string): ErrorBody {
  return { message, statusCode: status }
}

export interface ErrorsOptions {
  /** The methods a path answers to, or null for a path the service does not know. */
  methodsFor: (path: string) => readonly string[] | null
}

/**
 * Replaces Elysia's defaults: every error is `{message, statusCode}`; a known path
 * asked with another method is 405 with `Allow`; a failed response schema is a
 * 500 (a bug, logged) and never a stack trace or an internal path.
 */
export function errors({ methodsFor }: ErrorsOptions) {
  return new Elysia({ name: 'errors' }).error({ ApiError }).onError({ as: 'global' }, ({ code, error, set, request }) => {
    const fail = (status: number, message: string) => {
      set.status = status
      return errorBody(status, message)
    }
    if (error instanceof Busy) {
      set.headers['retry-after'] = String(error.retryAfterSeconds)
      return fail(503, error.message)
    }
    if (error instanceof Abandoned) return fail(499, error.message)
    if (error instanceof ApiError) {
      if (error.headers) Object.assign(set.headers, error.headers)
      return fail(error.status, error.message)
    }
    switch (code) {
      case 'NOT_FOUND': {
        const path = requestPath(request.url)
        const methods = methodsFor(path)
        // A method the path allows that the router still did not match (`//`, which the pattern matcher reads as `/`): no such path.
        if (methods && !methods.includes(request.method)) {
          set.headers.allow = methods.join(', ')
          return fail(405, `method ${shown(request.method)} is not allowed on ${shown(path)}; use ${methods.join(', ')}`)
        }
        if (!STANDARD_METHODS.has(request.method)) return fail(501, `method ${shown(request.method)} is not implemented; this service answers GET, HEAD and OPTIONS`)
        return fail(404, `no such path: ${shown(path)}`)
      }
      case 'VALIDATION':
        if (error.type === 'response') {
          log.error('response failed its schema', { path: requestPath(request.url), detail: error.message.slice(0, 500) })
          return fail(500, 'internal server error')
        }
        return fail(400, `invalid ${error.type}: ${error.valueError?.path?.replace(/^\//, '') ?? ''} ${error.valueError?.message ?? ''}`.trim())
      case 'PARSE':
        return fail(400, 'the request body could not be parsed')
      default:
        log.error('unexpected failure', { path: requestPath(request.url), error: String(error instanceof Error ? error.stack : error) })
        return fail(500, 'internal server error')
    }
  })
}
