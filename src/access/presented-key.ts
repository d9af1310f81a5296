// Where a client puts its key: "Authorization: Bearer KEY" (OpenAI's
// clients; "Token KEY", Deepgram's), "xi-api-key: KEY" (ElevenLabs' clients) or, on a WebSocket
// upgrade only, the query parameter api_key (a browser's WebSocket cannot
// send headers). Plain HTTP requests never take it from the URL: URLs end up
// in proxies' and browsers' histories.

import type { IncomingHttpHeaders } from 'node:http'

const KEY_QUERY_PARAMETER = 'api_key'

const BEARER = /^(?:Bearer|Token)[ \t]+(\S+)[ \t]*$/i

function header (headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/**
 * The key a request presents, or undefined when it presents none. An
 * Authorization header that is not a bearer token presents an empty key
 * (which matches none), so a malformed header is refused as invalid, not
 * taken as no key.
 */
export function presentedKey (headers: IncomingHttpHeaders, upgradeUrl?: string): string | undefined {
  const authorization = header(headers, 'authorization')
  if (authorization !== undefined && authorization !== '') return BEARER.exec(authorization)?.[1] ?? ''
  const xi = header(headers, 'xi-api-key')
  if (xi !== undefined && xi !== '') return xi.trim()
  if (upgradeUrl === undefined) return undefined
  const fromQuery = new URL(upgradeUrl, 'http://upgrade.invalid').searchParams.get(KEY_QUERY_PARAMETER)
  return fromQuery === null || fromQuery === '' ? undefined : fromQuery
}
