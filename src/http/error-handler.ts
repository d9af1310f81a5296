// The one error handler, first in the stack. Expected errors (ChorusError
// with expose) go to the client as {"error", "code", ...details}; anything
// else is a bug: logged with its stack, answered with a generic 500.

import type { Middleware } from 'koa'
import { ChorusError, MethodNotAllowedError, OverloadedError } from '../errors.js'
import type { ChorusState } from './context.js'

export function errorHandler (): Middleware<ChorusState> {
  return async (ctx, next) => {
    try {
      await next()
    } catch (error) {
      // Once audio has started streaming, the status is gone: end the stream.
      if (ctx.headerSent) {
        ctx.state.log.warn({ err: error }, 'error after the response started; closing it')
        ctx.res.destroy()
        return
      }
      if (error instanceof ChorusError && error.expose) {
        ctx.status = error.status
        ctx.body = { error: error.message, code: error.code, ...error.details }
        if (error instanceof OverloadedError) ctx.set('Retry-After', String(error.retryAfterSeconds))
        if (error instanceof MethodNotAllowedError) ctx.set('Allow', error.allow.join(', '))
        ctx.state.log.info({ status: error.status, code: error.code }, error.message)
        return
      }
      ctx.state.log.error({ err: error }, 'unexpected error')
      ctx.status = 500
      ctx.body = { error: 'Internal server error', code: 'ERR_INTERNAL' }
    }
  }
}
