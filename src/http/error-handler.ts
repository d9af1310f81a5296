// The one error handler, first in the stack. Expected errors (ChorusError
// with expose) go to the client as {"error", "code", ...details}; a client
// that hung up is logged at info as such (metrics count it as 499); anything
// else is a bug: logged with its stack, answered with a generic 500.

import type { Context, Middleware } from 'koa'
import { ChorusError, MethodNotAllowedError, OverloadedError } from '../errors.js'
import type { ChorusState } from './context.js'

export function errorHandler (): Middleware<ChorusState> {
  return async (ctx, next) => {
    try {
      await next()
    } catch (error) {
      if (clientHungUp(ctx, error)) {
        ctx.state.log.info({ status: 499, reason: hangUpReason(error) }, 'client closed the connection')
        ctx.res.destroy()
        return
      }
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

// What Node reports when the peer resets or closes mid-request; the parser's
// "invalid EOF state" is a connection that ended inside a request.
const HANG_UP_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE', 'HPE_INVALID_EOF_STATE'])

/** Whether an error is Node's report of a client hang-up. */
export function isHangUpError (error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && HANG_UP_CODES.has(code)
}

/** The client went away before its answer was written: nothing of ours failed. */
function clientHungUp (ctx: Context, error: unknown): boolean {
  if (isHangUpError(error)) return true
  return !ctx.res.writableFinished && (ctx.req.aborted || ctx.req.socket.destroyed)
}

function hangUpReason (error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error)
}
