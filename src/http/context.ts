// What the middleware stack puts on ctx.state.

import type { RequestLogState } from '../shared/request-id.js'

export interface ChorusState extends RequestLogState {
  /** The route's name for metrics; unknown paths stay "unmatched". */
  route: string
}
