// After the router: a known path with another method is 405 with Allow
// (counted in metrics under that path); anything else that no route
// answered is 404. Not the router's allowedMethods(): that answers OPTIONS
// with 200 rather than 204, a method it does not know (PROPFIND) with 501
// rather than 405/404, lists Allow in route order rather than sorted, and
// leaves the route label "unmatched"; the service's answers are a contract.

import type Router from '@koa/router'
import type { Middleware } from 'koa'
import { methodNotAllowed, notFound } from './errors.js'
import type { ChorusState } from './context.js'

export function methodGuard (router: Router): Middleware<ChorusState> {
  return async (ctx, next) => {
    await next()
    if (ctx.status !== 404 || ctx.body !== undefined) return
    const matched = router.match(ctx.path, ctx.method)
    const allow = [...new Set(matched.path.flatMap(layer => layer.methods))].sort()
    if (allow.length === 0) throw notFound()
    // A known path keeps its own label in metrics, whatever the method.
    ctx.state.route = String(matched.path[0].path)
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204
      ctx.set('Allow', [...allow, 'OPTIONS'].join(', '))
      return
    }
    throw methodNotAllowed(ctx.method, allow)
  }
}
