// The soak fills the TTS service's phrase cache before it measures anything.
// The cache is bounded memory (TTS_CACHE_BYTES) that a service holds once it
// has run a while; at the soak's rates on a slow machine the corpus alone
// fills it over tens of minutes (measured: at 0.21 requests/s, 64 MiB took
// about 25), and the drift after warm-up would count that as creep. The
// built-in voice speaks far faster than a Piper voice, so it fills the cache
// in seconds: distinct texts, each a miss, until an eviction shows the cache
// at its bound. The corpus's answers then take the place of these entries.

import { ChorusError } from '../../src/errors.js'
import type { BenchClient } from '../client.js'
import { parsePrometheus } from '../metrics-scrape.js'

export interface CacheFill {
  requests: number
  /** chorus_cache_bytes when the fill stopped (0: the cache is off). */
  bytes: number
}

const FILLER = 'A long answer, made only to take up room in the phrase cache before the soak begins to measure. ' +
  'It is spoken once by the built-in voice, never asked for again, and pushed out by the answers that follow. '

async function cacheBytes (client: BenchClient): Promise<number> {
  return parsePrometheus(await client.getText('/metrics')).get('chorus_cache_bytes') ?? 0
}

export async function fillPhraseCache (client: BenchClient, voice: string, maxRequests = 2000): Promise<CacheFill> {
  let previous = await cacheBytes(client)
  for (let i = 0; i < maxRequests; i++) {
    const text = `Entry ${i}. ${FILLER.repeat(3)}`
    const sample = await client.synthesize({ text, voice, repeated: false, body: JSON.stringify({ text, voice }) })
    if (sample.error !== undefined) throw new ChorusError('ERR_SOAK', `filling the phrase cache with ${voice} failed: ${sample.error} ${sample.message ?? ''}`)
    const bytes = await cacheBytes(client)
    // Off, or full: the last answer did not add to it.
    if (bytes === 0 || bytes <= previous) return { requests: i + 1, bytes }
    previous = bytes
  }
  return { requests: maxRequests, bytes: previous }
}
