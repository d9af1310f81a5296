// Which web pages may make the service work: CSRF protection and CORS.
// A browser sends a "simple" cross-origin POST (no Content-Type, or a form
// type) without asking first and only hides the answer from the page, so any
// page a person opens could make the service synthesise. Browsers say where
// a request comes from (Origin, Sec-Fetch-Site); other clients (curl, SDKs,
// servers) send neither and are served as always. A page may call the
// service from the service's own origin (the playground) or from an origin on
// TTS_ALLOWED_ORIGINS, which also get the CORS answers they need; any other
// page is refused before any work is done.

import type Koa from 'koa'
import { isForeignOrigin, originNotAllowed } from '../shared/page-origin.js'

/** Headers a page may send and read. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Chorus-Voice, xi-api-key'
const EXPOSED_HEADERS = 'Content-Length, Retry-After, X-Chorus-Voice, X-Request-Id'
/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600

/** A page's request carries Origin; without it, Sec-Fetch-Site still tells a foreign page. */
function fromAnotherOrigin (ctx: Koa.Context, origin: string): boolean {
  if (origin !== '') return isForeignOrigin(origin, ctx.host)
  const site = ctx.get('Sec-Fetch-Site')
  return site === 'cross-site' || site === 'same-site'
}

export function browserOrigins (allowed: readonly string[]): Koa.Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('Origin')
    if (!fromAnotherOrigin(ctx, origin)) return await next()
    // Following a link to the playground or /voices does no work.
    if ((ctx.method === 'GET' || ctx.method === 'HEAD') && ctx.get('Sec-Fetch-Mode') === 'navigate') return await next()
    if (origin === '' || !allowed.includes(origin)) throw originNotAllowed(origin === '' ? undefined : origin)
    ctx.vary('Origin')
    ctx.set('Access-Control-Allow-Origin', origin)
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST')
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS)
      ctx.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE))
      ctx.status = 204
      return
    }
    ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS)
    await next()
  }
}
