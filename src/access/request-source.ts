// Where a request comes from, decided the same way for every door (HTTP
// routes and the WebSocket upgrade): the host name it was sent to, then the
// web page that sent it.
//
// Host (TTS_ALLOWED_HOSTS, default any): a page on a name its attacker owns
// can point that name at this service's address (DNS rebinding) and then
// call it as if same-origin, so Origin tells nothing; only the Host header
// still carries the attacker's name. A name not on the list is refused with
// 421 Misdirected Request: the name is wrong, not the client's rights (no key
// or origin would fix it, which 403 or 401 would suggest), and the answer
// stays apart from the origin and key refusals in logs and metrics. An IP
// address is always accepted: no page can rebind one, and probes and
// clients inside a cluster address the service by IP.
//
// Page (CSRF): a browser sends a "simple" cross-origin POST without asking
// first and only hides the answer from the page, so any page a person opens
// could make the service work. Browsers say where a request comes from
// (Origin, Sec-Fetch-Site); other clients send neither and pass. A page may
// call from the service's own origin or from one on TTS_ALLOWED_ORIGINS,
// which also gets the CORS answers it needs; any other is refused (403).

import type { IncomingHttpHeaders } from 'node:http'
import { isIP } from 'node:net'
import { isForeignOrigin, originNotAllowed } from '../shared/page-origin.js'
import { misdirected } from './errors.js'

export interface SourceRules {
  /** TTS_ALLOWED_ORIGINS: pages besides the service's own. */
  allowedOrigins: readonly string[]
  /** TTS_ALLOWED_HOSTS: names the service answers to ("tts.example.com", or
   * ".example.com" for it and every name under it); undefined: any. */
  allowedHosts?: readonly string[]
}

export interface SourceVerdict {
  /** The CORS answers an allowed foreign page gets; empty for other requests. */
  cors: Record<string, string>
  /** A browser's preflight from an allowed page: answered at once, without a key. */
  preflight: boolean
}

/** Headers a page may send and read. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, X-Chorus-Voice, xi-api-key'
const EXPOSED_HEADERS = 'Content-Length, Retry-After, X-Chorus-Voice, X-Request-Id'
/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600

function header (headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name]
  return (Array.isArray(value) ? value[0] : value) ?? ''
}

/** The host name a Host header names, lower-case, without port or final dot; undefined if it names none. */
export function hostName (host: string): string | undefined {
  if (host === '') return undefined
  try {
    const name = new URL(`http://${host}`).hostname.toLowerCase()
    return name.endsWith('.') ? name.slice(0, -1) : name
  } catch {
    return undefined
  }
}

export function hostAllowed (host: string, allowed: readonly string[] | undefined): boolean {
  if (allowed === undefined) return true
  const name = hostName(host)
  if (name === undefined) return false
  if (isIP(name.replace(/^\[|\]$/g, '')) !== 0) return true
  return allowed.some(rule => rule.startsWith('.') ? name === rule.slice(1) || name.endsWith(rule) : name === rule)
}

/** A page's request carries Origin; without it, Sec-Fetch-Site still tells a foreign page. */
function fromAnotherPage (headers: IncomingHttpHeaders, origin: string): boolean {
  if (origin !== '') return isForeignOrigin(origin, headers.host)
  const site = header(headers, 'sec-fetch-site')
  return site === 'cross-site' || site === 'same-site'
}

/** Refuses (421, 403) a request the service must not serve for where it comes from. */
export function checkSource (method: string, headers: IncomingHttpHeaders, rules: SourceRules): SourceVerdict {
  if (!hostAllowed(header(headers, 'host'), rules.allowedHosts)) throw misdirected(hostName(header(headers, 'host')))
  const origin = header(headers, 'origin')
  const none: SourceVerdict = { cors: {}, preflight: false }
  if (!fromAnotherPage(headers, origin)) return none
  // Following a link to the playground or /voices does no work.
  if ((method === 'GET' || method === 'HEAD') && header(headers, 'sec-fetch-mode') === 'navigate') return none
  if (origin === '' || !rules.allowedOrigins.includes(origin)) throw originNotAllowed(origin === '' ? undefined : origin)
  if (method === 'OPTIONS' && header(headers, 'access-control-request-method') !== '') {
    return {
      preflight: true,
      cors: {
        Vary: 'Origin',
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': 'GET, POST',
        'Access-Control-Allow-Headers': ALLOWED_HEADERS,
        'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE)
      }
    }
  }
  return { preflight: false, cors: { Vary: 'Origin', 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS } }
}
