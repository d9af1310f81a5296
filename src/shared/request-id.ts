// Request ids for every server: the client's X-Request-Id when it is a sane
// token (letters, digits, ".", "_", ":", "-"; at most 128), else a new UUID.
// It is echoed back and, through a child logger, put on every line the
// request logs.

import { randomUUID } from 'node:crypto'
import type Koa from 'koa'
import type { Logger } from './logger.js'

/** What a client's request id may be; anything else is replaced. */
export const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** What the request-id middleware puts on ctx.state. */
export interface RequestLogState {
  requestId: string
  log: Logger
}

/** The request's id, echoed in the X-Request-Id response header. */
export function assignRequestId (ctx: Koa.Context): string {
  const given = ctx.get('X-Request-Id')
  const id = SAFE_ID.test(given) ? given : randomUUID()
  ctx.set('X-Request-Id', id)
  return id
}

/** Gives each request its id and a logger whose lines carry it. */
export function requestId (logger: Logger): Koa.Middleware<RequestLogState> {
  return async (ctx, next) => {
    const id = assignRequestId(ctx)
    ctx.state.requestId = id
    ctx.state.log = logger.child({ requestId: id })
    await next()
  }
}
