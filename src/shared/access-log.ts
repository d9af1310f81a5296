// The access log of the tool server and the reference spawner: one line per
// response (method, path, status, time) with the request's id (see
// request-id.ts), never with headers or bodies.

import type Koa from 'koa'
import type { Logger } from './logger.js'
import { assignRequestId } from './request-id.js'

export function accessLog (logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const id = assignRequestId(ctx)
    const started = performance.now()
    ctx.res.once('finish', () => {
      logger.info({ requestId: id, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) }, 'request')
    })
    await next()
  }
}
