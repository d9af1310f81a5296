// The JSON error middleware of every server, placed first in each app.
// Expected errors (a ChorusError with expose) become JSON bodies with their
// status and headers; anything else is a bug, answered with a bare 500 whose
// details stay in the log. A client that hung up, or an error after the
// response started, ends the connection: there is no one to answer. The
// servers share the mechanism and differ only in body shape, which each
// passes in, and in where their lines go.

import type Koa from 'koa'
import { isChorusError, type ChorusError } from '../errors.js'
import type { Logger } from './logger.js'

type Body = Record<string, unknown>

/** The one wording of a bug's answer, on every server. */
export const INTERNAL_ERROR_MESSAGE = 'Internal server error'

export interface ErrorBodies {
  /** An expected error the client may see (a ChorusError with expose). */
  known: (error: ChorusError) => Body
  /** A bug, or an error not meant for the client. */
  internal: Body
  /** What no route answered: Koa's empty 404, 405 or 501, with its status text. */
  unrouted?: (status: number, message: string) => Body
}

export interface ErrorOptions extends ErrorBodies {
  /** The request's logger: answered errors at info, bugs at error. Without
   * it, bugs go to the app's 'error' event and the rest is not logged. */
  log?: (ctx: Koa.Context) => Logger
}

/** The house body (STYLE rule 4): `{"error": "<message>", "code": "<CODE>", …details}`. */
export const HOUSE_BODIES: ErrorBodies = {
  known: error => ({ error: error.message, code: error.code, ...error.details }),
  internal: { error: INTERNAL_ERROR_MESSAGE, code: 'ERR_INTERNAL' }
}

const UNROUTED = new Set([404, 405, 501])

export function jsonErrors (options: ErrorOptions): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next()
      const status = ctx.status
      if (options.unrouted !== undefined && UNROUTED.has(status) && ctx.body == null) {
        ctx.body = options.unrouted(status, ctx.message)
        // Setting a body makes Koa answer 200 unless the status is set again.
        ctx.status = status
      }
    } catch (error) {
      const log = options.log?.(ctx)
      if (clientHungUp(ctx, error)) {
        log?.info({ status: 499, reason: hangUpReason(error) }, 'client closed the connection')
        ctx.res.destroy()
        return
      }
      // Once the body has started (streamed audio), the status is gone: end it.
      if (ctx.headerSent) {
        if (log === undefined) ctx.app.emit('error', error, ctx)
        else log.warn({ err: error }, 'error after the response started; closing it')
        ctx.res.destroy()
        return
      }
      if (isChorusError(error) && error.expose) {
        ctx.status = error.status
        for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value)
        ctx.body = options.known(error)
        log?.info({ status: error.status, code: error.code }, error.message)
        return
      }
      if (log === undefined) ctx.app.emit('error', error, ctx)
      else log.error({ err: error }, 'unexpected error')
      ctx.status = 500
      ctx.body = options.internal
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
function clientHungUp (ctx: Koa.Context, error: unknown): boolean {
  if (isHangUpError(error)) return true
  return !ctx.res.writableFinished && (ctx.req.aborted || ctx.req.socket.destroyed)
}

function hangUpReason (error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error)
}
