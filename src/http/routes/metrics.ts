// GET /metrics in Prometheus's text format.

import Router from '@koa/router'
import type { ChorusState } from '../context.js'
import type { ServiceDeps } from '../deps.js'

export function metricsRoutes (deps: ServiceDeps): Router<ChorusState> {
  const router = new Router<ChorusState>()
  router.get('metrics', '/metrics', async ctx => {
    ctx.state.route = '/metrics'
    ctx.type = deps.metrics.registry.contentType
    ctx.body = await deps.metrics.registry.metrics()
  })
  return router
}
