// Request ids and the access log of the tool server and the reference
// spawner: every request gets the client's X-Request-Id when it is a sane
// token, else a new one; it is echoed back and logged with one line per
// response (method, path, status, time), never with headers or bodies.

import { randomUUID } from 'node:crypto'
import type Koa from 'koa'
import type { Logger } from './logger.js'

const SAFE_ID = /^[\w.-]{1,64}$/

export function accessLog (logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    const requested = ctx.get('X-Request-Id')
    const id = SAFE_ID.test(requested) ? requested : randomUUID()
    ctx.set('X-Request-Id', id)
    const started = performance.now()
    ctx.res.once('finish', () => {
      logger.info({ reqId: id, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) }, 'request')
    })
    await next()
  }
}
