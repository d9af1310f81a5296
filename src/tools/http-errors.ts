// The tool server's one error-handling middleware, placed first: expected
// errors become `{"error", "code"}` bodies with their status; anything else
// is a bug, reported through app.emit('error') and answered with a bare 500.

import type Koa from 'koa'
import { isChorusError } from '../errors.js'

const FALLBACK_CODES: Record<number, string> = {
  404: 'ERR_NOT_FOUND',
  405: 'ERR_METHOD_NOT_ALLOWED',
  501: 'ERR_NOT_IMPLEMENTED'
}

export function errorMiddleware (): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next()
      // Unrouted paths and methods leave an empty 404/405/501: give them a body too.
      const status = ctx.status
      const code = FALLBACK_CODES[status]
      if (code !== undefined && ctx.body == null) {
        ctx.body = { error: ctx.message, code }
        // Setting a body makes Koa answer 200 unless the status is set again.
        ctx.status = status
      }
    } catch (error) {
      const known = isChorusError(error)
      const status = known ? error.status : 500
      if (status >= 500) ctx.app.emit('error', error, ctx)
      ctx.status = status
      ctx.body = known && error.expose
        ? { error: error.message, code: error.code, ...error.details }
        : { error: 'Internal Server Error', code: 'ERR_INTERNAL' }
    }
  }
}
