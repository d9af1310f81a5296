// A response of compressed audio (any format but /tts's WAV), shared by /tts
// and /v1/audio/speech: a phrase-cache hit is sent whole; otherwise the
// request is admitted, synthesised and encoded sentence by sentence, and each
// encoded chunk is written as soon as it exists. The status and headers wait
// for the first chunk, so that a failure before any audio (timeout, a voice
// that will not load) still gets its proper status and error body.

import { PassThrough, Readable } from 'node:stream'
import type { Context } from 'koa'
import { FORMAT_INFO, type AudioFormat } from '../audio/formats.js'
import { speechCacheKey } from '../synthesis/phrase-cache.js'
import { encodeSpeech } from '../synthesis/encoded-speech.js'
import type { PreparedSynthesis } from '../synthesis/synthesizer.js'
import type { ChorusState } from './context.js'
import type { ServiceDeps } from './deps.js'
import { recordSpeech } from './metrics.js'
import { outcome, requestSignal } from './request-signal.js'

/** How encoded bytes go on the wire: as they are, or wrapped (SSE). */
export interface Framing {
  contentType: string
  chunk: (bytes: Uint8Array) => Uint8Array | string
  /** Written after the last chunk. */
  end?: () => string
}

export function rawFraming (format: AudioFormat): Framing {
  return { contentType: FORMAT_INFO[format].contentType, chunk: bytes => bytes }
}

export async function sendSpeech (ctx: Context & { state: ChorusState }, deps: ServiceDeps, prepared: PreparedSynthesis, text: string, format: AudioFormat, framing: Framing): Promise<void> {
  const { cache, metrics, synthesizer, config } = deps
  const key = cache.enabled ? speechCacheKey(prepared, text, format) : undefined
  // A hit needs no worker, so it is served even when the queue is full.
  const hit = key === undefined ? undefined : cache.get(key)
  ctx.set('X-Chorus-Voice', prepared.voice.name)
  if (hit !== undefined) {
    metrics.cacheHits.inc()
    ctx.type = framing.contentType
    ctx.body = Readable.from([framing.chunk(hit.bytes), ...(framing.end === undefined ? [] : [framing.end()])])
    return
  }
  if (key !== undefined) metrics.cacheMisses.inc()
  const release = synthesizer.admit()
  ctx.state.log.info({ voice: prepared.voice.name, characters: text.length, format }, 'synthesis')
  ctx.state.log.debug({ text }, 'synthesis text')
  const { signal, done } = requestSignal(ctx, config.timeoutMs)
  const started = performance.now()
  const body = new PassThrough()
  let first: () => void = () => {}
  const firstBytes = new Promise<void>(resolve => { first = resolve })
  const finished = encodeSpeech(synthesizer, deps.encoders, prepared, text, {
    format,
    signal,
    keep: key !== undefined,
    onBytes: bytes => {
      body.write(framing.chunk(bytes))
      first()
    }
  })
  finished.then(({ chunks, samples }) => {
    recordSpeech(metrics, prepared, samples, started)
    if (framing.end !== undefined) body.write(framing.end())
    body.end()
    if (key !== undefined) cache.set(key, { bytes: Buffer.concat(chunks), sampleRate: prepared.sampleRate })
  }, error => {
    ctx.state.log.warn({ err: outcome(error, signal) }, 'encoded synthesis stopped')
    body.destroy()
  }).finally(() => {
    done()
    release()
  })
  try {
    await Promise.race([firstBytes, finished])
  } catch (error) {
    throw outcome(error, signal)
  }
  ctx.type = framing.contentType
  ctx.body = body
}
