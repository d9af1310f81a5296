// The tool server's error bodies, on the shared JSON error middleware:
// `{"error", "code", …details}`, the house format.

import type Koa from 'koa'
import { HOUSE_BODIES, jsonErrors } from '../shared/json-errors.js'

const FALLBACK_CODES: Record<number, string> = {
  404: 'ERR_NOT_FOUND',
  405: 'ERR_METHOD_NOT_ALLOWED',
  501: 'ERR_NOT_IMPLEMENTED'
}

/** The tool server's bodies: `{"error", "code", …details}`. */
export function errorMiddleware (): Koa.Middleware {
  return jsonErrors({
    ...HOUSE_BODIES,
    unrouted: (status, message) => ({ error: message, code: FALLBACK_CODES[status] })
  })
}
