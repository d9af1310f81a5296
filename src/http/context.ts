// What the middleware stack puts on ctx.state.

import type { Logger } from '../shared/logger.js'

export interface ChorusState {
  requestId: string
  log: Logger
  /** The route's name for metrics; unknown paths stay "unmatched". */
  route: string
}
