// What the whole-answer benchmarks set on the service they start, beside
// the operator's TTS_* variables: the phrase cache off (a repeated sentence
// would be answered from it, not made), a text limit that takes the longest
// answer sent, and a request timeout long enough that a starved request's
// latency is measured rather than cut at the default 60 s (a 504 says
// nothing of how long it would have waited). TTS_TIMEOUT_SECONDS in the
// environment wins.

import type { Env } from '../../src/shared/config-values.js'
import { maxTextLengthFor } from './texts.js'

/** The request timeout when the environment sets none. */
const TIMEOUT_SECONDS = 600

/** The harness's own guard on a request: past the service's timeout, so the service decides. */
export function clientTimeoutMs (env: Env): number {
  return ((Number(env.TTS_TIMEOUT_SECONDS) || TIMEOUT_SECONDS) + 60) * 1000
}

export function wholeAnswerOverrides (env: Env, texts: readonly string[]): Record<string, string> {
  return {
    TTS_CACHE_BYTES: '0',
    TTS_MAX_TEXT_LENGTH: String(Math.max(maxTextLengthFor(texts), Number(env.TTS_MAX_TEXT_LENGTH) || 0)),
    TTS_TIMEOUT_SECONDS: env.TTS_TIMEOUT_SECONDS ?? String(TIMEOUT_SECONDS)
  }
}
