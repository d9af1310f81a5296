// Counts every response by route, method and status, and times it from
// arrival to the last byte (or to the client going away).

import type { Middleware } from 'koa'
import type { ServiceMetrics } from './metrics.js'
import type { ChorusState } from './context.js'

export function requestMetrics (metrics: ServiceMetrics): Middleware<ChorusState> {
  return async (ctx, next) => {
    ctx.state.route = 'unmatched'
    const stop = metrics.latency.startTimer()
    ctx.res.once('close', () => {
      const route = ctx.state.route
      stop({ route })
      metrics.requests.inc({ route, method: ctx.method, status: String(ctx.res.writableFinished ? ctx.status : 499) })
    })
    await next()
  }
}
