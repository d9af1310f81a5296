// The admin check of the TTS service: one middleware, so the voice admin
// routes do not care how an admin is recognised. Today a single bearer token
// (TTS_ADMIN_TOKEN); an API-key scheme with an admin role can take its place
// here without touching the routes.

import type Koa from 'koa'
import { ChorusError } from '../errors.js'
import { bearerMatches } from '../shared/bearer.js'

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="chorus-admin"' }

export function requireAdmin (token: string | undefined): Koa.Middleware {
  return async (ctx, next) => {
    // Off unless configured: no token means no admin, not an open door.
    if (token === undefined) {
      throw new ChorusError('ERR_ADMIN_DISABLED', 'Voice administration is off: the service has no TTS_ADMIN_TOKEN', { status: 403 })
    }
    const header = ctx.get('Authorization')
    if (header === '') {
      throw new ChorusError('ERR_UNAUTHORIZED', 'Expected an Authorization header with the admin bearer token (TTS_ADMIN_TOKEN)', { status: 401, headers: CHALLENGE })
    }
    if (!bearerMatches(header, token)) {
      throw new ChorusError('ERR_UNAUTHORIZED', 'The Authorization header does not carry the admin bearer token', { status: 401, headers: CHALLENGE })
    }
    await next()
  }
}
