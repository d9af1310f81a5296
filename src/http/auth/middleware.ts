// The key check as Koa middleware: after the browser-origin check (so a
// refusal still carries CORS headers for an allowed page) and before the
// 404/405 guard (so a stranger learns nothing about the routes). Public
// paths: liveness and readiness (probes carry no keys), /metrics when
// TTS_METRICS_PUBLIC=1, and the playground's three static files, which hold
// no data and are where a person types the key in.

import type Koa from 'koa'
import type { ChorusState } from '../context.js'
import type { ApiAccess } from '../../access/access.js'
import { adminRequired, unauthorized } from '../../access/errors.js'

export const PUBLIC_PATHS: readonly string[] = ['/health', '/ready', '/', '/playground.js', '/playground.css']

export function requireKey (access: ApiAccess, options: { metricsPublic: boolean }): Koa.Middleware<ChorusState> {
  const open = new Set([...PUBLIC_PATHS, ...(options.metricsPublic ? ['/metrics'] : [])])
  return async (ctx, next) => {
    const identity = open.has(ctx.path) ? access.anonymous() : access.authenticate(ctx.headers)
    ctx.state.identity = identity
    ctx.state.admitSpeech = () => access.openStream(identity)
    access.admitRequest(identity)
    await next()
  }
}

/**
 * For admin-only routes (voice install and removal): 403 for a key with the
 * role "user". With keys off every request may do everything, as before
 * keys existed: set a keys file before exposing admin routes.
 */
export function requireAdmin (): Koa.Middleware<ChorusState> {
  return async (ctx, next) => {
    const identity = ctx.state.identity
    if (identity?.keysRequired === true) {
      if (identity.key === undefined) throw unauthorized(false)
      if (identity.key.role !== 'admin') throw adminRequired(identity.key.name)
    }
    await next()
  }
}
