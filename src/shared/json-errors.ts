// The JSON error middleware of the tool server and the reference spawner,
// placed first in each app: expected errors become JSON bodies with their
// status; anything else is a bug, reported through app.emit('error') and
// answered with a bare 500. The servers share the mechanism and differ only
// in body shape, which each passes in.

import type Koa from 'koa'
import { isChorusError, type ChorusError } from '../errors.js'

type Body = Record<string, unknown>

export interface ErrorBodies {
  /** An expected error the client may see (a ChorusError with expose). */
  known: (error: ChorusError) => Body
  /** A bug, or an error not meant for the client. */
  internal: Body
  /** What no route answered: Koa's empty 404, 405 or 501, with its status text. */
  unrouted: (status: number, message: string) => Body
}

const UNROUTED = new Set([404, 405, 501])

export function jsonErrors (bodies: ErrorBodies): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next()
      const status = ctx.status
      if (UNROUTED.has(status) && ctx.body == null) {
        ctx.body = bodies.unrouted(status, ctx.message)
        // Setting a body makes Koa answer 200 unless the status is set again.
        ctx.status = status
      }
    } catch (error) {
      const known = isChorusError(error)
      const status = known ? error.status : 500
      if (status >= 500) ctx.app.emit('error', error, ctx)
      ctx.status = status
      ctx.body = known && error.expose ? bodies.known(error) : bodies.internal
    }
  }
}
