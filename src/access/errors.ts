// Refusals of the API-key check and the quotas, as factories. The messages
// are the wire contract; none of them quotes a presented key.

import { ChorusError } from '../errors.js'

/** No key, or one the keys file does not have: 401 with the challenge
 * OpenAI's and other HTTP clients expect. */
export function unauthorized (presented: boolean): ChorusError {
  const message = presented
    ? 'The API key is not valid'
    : 'An API key is required: send it as "Authorization: Bearer <key>" or "xi-api-key: <key>"'
  return new ChorusError('ERR_UNAUTHORIZED', message, { status: 401, headers: { 'WWW-Authenticate': 'Bearer realm="chorus"' } })
}

export function adminRequired (name: string): ChorusError {
  return new ChorusError('ERR_FORBIDDEN', `The key "${name}" has the role "user": this action needs a key with the role "admin"`, { status: 403, details: { role: 'user' } })
}

/** Which quota, its limit and when to retry (whole seconds, at least 1). */
export function quotaExceeded (name: string, quota: string, limit: number, retryAfterSeconds: number): ChorusError {
  const unit = quota.replaceAll('_', ' ')
  return new ChorusError('ERR_QUOTA_EXCEEDED',
    `The key "${name}" is over its quota of ${limit} ${unit}: retry in ${retryAfterSeconds} s`,
    { status: 429, details: { quota, limit, retry_after: retryAfterSeconds }, headers: { 'Retry-After': String(retryAfterSeconds) } })
}

/** A Host name not on TTS_ALLOWED_HOSTS (DNS rebinding, or a wrong name). */
export function misdirected (host: string | undefined): ChorusError {
  const named = host === undefined ? 'names no valid host' : `names the host "${host}"`
  return new ChorusError('ERR_MISDIRECTED_REQUEST',
    `This request ${named}, which this service does not answer to: add it to TTS_ALLOWED_HOSTS to serve it`,
    { status: 421, details: host === undefined ? {} : { host } })
}
