/** Service endpoints: the healthcheck. */
import { Elysia, t } from 'elysia'
import type { ModuleContext } from '../common.ts'
import { ErrorSchema } from '../satellites/model.ts'

export function serviceModule({ store }: ModuleContext) {
  return new Elysia({ name: 'service', prefix: '/api/v1/service' }).get(
    '/healthcheck',
    ({ set }) => {
      if (store.current.size === 0) {
        set.status = 503
        return { message: 'no catalogue loaded', statusCode: 503 }
      }
      return { message: 'OK' }
    },
    {
      response: { 200: t.Object({ message: t.Literal('OK') }), 503: ErrorSchema },
      detail: { summary: 'Health check', description: '200 {"message": "OK"} while the service answers from a loaded catalogue.' },
    },
  )
}
