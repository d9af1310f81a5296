// Bearer-token checks for the servers that take one.

import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * Whether an Authorization header carries exactly this bearer token. Both
 * sides are hashed first so the comparison takes the same time whatever the
 * length or content of the guess.
 */
export function bearerMatches (header: string | undefined, token: string): boolean {
  const presented = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '')?.[1] ?? ''
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(presented), digest(token))
}
