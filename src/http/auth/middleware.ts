// Admission as Koa middleware, before the 404/405 guard (so a stranger
// learns nothing about the routes): the access module's one check at every
// door (host, page, key, requests per minute, tenant; src/access/access.ts),
// whose CORS answers go on the response (refusals included, so an allowed
// page can read them) and whose preflight is answered here. Public paths:
// liveness and readiness (probes carry no keys), /metrics when
// TTS_METRICS_PUBLIC=1, and the playground's three static files, which hold
// no data and are where a person types the key in.

import type Koa from 'koa'
import type { ChorusState } from '../context.js'
import type { ApiAccess } from '../../access/access.js'
import { adminRequired, unauthorized } from '../../access/errors.js'
import { ChorusError } from '../../errors.js'
import { bearerMatches } from '../../shared/bearer.js'

const ADMIN_CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="chorus-admin"' }

const PUBLIC_PATHS: readonly string[] = ['/health', '/ready', '/', '/playground.js', '/playground.css']

export function admission (access: ApiAccess, options: { metricsPublic: boolean }): Koa.Middleware<ChorusState> {
  const open = new Set([...PUBLIC_PATHS, ...(options.metricsPublic ? ['/metrics'] : [])])
  return async (ctx, next) => {
    const admitted = access.admit({ method: ctx.method, headers: ctx.headers, url: ctx.url, upgrade: false, connection: ctx.req.socket, open: open.has(ctx.path) })
    for (const [name, value] of Object.entries(admitted.cors)) {
      if (name === 'Vary') ctx.vary(value)
      else ctx.set(name, value)
    }
    if (admitted.preflight) {
      ctx.status = 204
      return
    }
    ctx.state.admitted = admitted
    await next()
  }
}

/**
 * For admin-only routes (voice install and removal). With keys set, an admin
 * is a key with the role "admin" (403 for a "user" key; admission already
 * answered 401 without one). Without keys, the one bearer token
 * TTS_ADMIN_TOKEN; unset, administration is off (403), never an open door.
 */
export function requireAdmin (adminToken: string | undefined): Koa.Middleware<ChorusState> {
  return async (ctx, next) => {
    const admitted = ctx.state.admitted
    if (admitted?.keysRequired === true) {
      const key = admitted.tenant.key
      if (key === undefined) throw unauthorized(false)
      if (key.role !== 'admin') throw adminRequired(key.name)
    } else {
      if (adminToken === undefined) {
        throw new ChorusError('ERR_ADMIN_DISABLED', 'Voice administration is off: the service has no TTS_ADMIN_TOKEN (or keys file with an admin key)', { status: 403 })
      }
      const header = ctx.get('Authorization')
      if (header === '') {
        throw new ChorusError('ERR_UNAUTHORIZED', 'Expected an Authorization header with the admin bearer token (TTS_ADMIN_TOKEN)', { status: 401, headers: ADMIN_CHALLENGE })
      }
      if (!bearerMatches(header, adminToken)) {
        throw new ChorusError('ERR_UNAUTHORIZED', 'The Authorization header does not carry the admin bearer token', { status: 401, headers: ADMIN_CHALLENGE })
      }
    }
    await next()
  }
}
