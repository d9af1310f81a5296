// Every request gets an id: the client's X-Request-Id when it is a sane
// token, otherwise a new one. It is echoed back and put on every log line.

import { randomUUID } from 'node:crypto'
import type { Middleware } from 'koa'
import type { Logger } from '../shared/logger.js'
import type { ChorusState } from './context.js'

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/

export function requestId (log: Logger): Middleware<ChorusState> {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-Id')
    const id = SAFE_ID.test(given) ? given : randomUUID()
    ctx.state.requestId = id
    ctx.state.log = log.child({ requestId: id })
    ctx.state.route = 'unmatched'
    ctx.set('X-Request-Id', id)
    await next()
  }
}
