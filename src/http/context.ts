// What the middleware stack puts on ctx.state.

import type { RequestLogState } from '../shared/request-id.js'
import type { Identity } from '../access/access.js'

export interface ChorusState extends RequestLogState {
  /** The route's name for metrics; unknown paths stay "unmatched". */
  route: string
  /** Who the request speaks for (auth/middleware.ts); set before any route runs. */
  identity?: Identity
  /** Admits one speech against the key's quotas (429 beyond); the release
   * is called when its response has closed. */
  admitSpeech?: () => () => void
}
