// What the middleware stack puts on ctx.state.

import type { RequestLogState } from '../shared/request-id.js'
import type { Admission } from '../access/access.js'

export interface ChorusState extends RequestLogState {
  /** The route's name for metrics; unknown paths stay "unmatched". */
  route: string
  /** The request's admission (auth/middleware.ts): who it speaks for, and
   * how each of its speeches is admitted. Set before any route runs. */
  admitted?: Admission
}
