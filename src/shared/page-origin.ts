// Which web page a browser request comes from, for every entry point of the
// TTS service that a page can reach (HTTP routes and the WebSocket upgrade):
// one comparison and one refusal, so CSRF protection means the same on both.

import { ChorusError } from '../errors.js'

/** Whether the Origin header names another host than the one the request was
 * sent to. Compared by host alone: behind a TLS proxy the service sees http,
 * the page https. An Origin that is not a URL ("null") is another origin. */
export function isForeignOrigin (origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host !== host
  } catch {
    return true
  }
}

/** A browser page from an origin not on TTS_ALLOWED_ORIGINS (CSRF protection);
 * `origin` is undefined when the browser said only that the page is on another site. */
export function originNotAllowed (origin: string | undefined): ChorusError {
  const page = origin === undefined ? 'a web page on another site' : `the web page at ${origin}`
  return new ChorusError('ERR_ORIGIN_NOT_ALLOWED',
    `Requests from ${page} are not allowed: add its origin to TTS_ALLOWED_ORIGINS to let it call this service`,
    { status: 403, details: origin === undefined ? {} : { origin } })
}
