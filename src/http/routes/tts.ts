// POST /tts and POST /v1/tts: JSON in, audio/wav out. Non-streaming answers
// carry an exact Content-Length; streaming ones (`"stream": true` or
// ?stream=1) send the WAV header at once, with an open-ended length, then
// each sentence's PCM as soon as it and all earlier sentences are ready.
// A compressed format (`format`, else the Accept header) always streams.
// The route translates HTTP only: synthesis/ assembles the audio and keys
// the cache.

import { PassThrough, Readable } from 'node:stream'
import Router from '@koa/router'
import type { Context } from 'koa'
import { formatForAccept } from '../../audio/formats.js'
import { speechCacheKey } from '../../synthesis/phrase-cache.js'
import type { PreparedSynthesis } from '../../synthesis/synthesizer.js'
import { parseTtsRequest, VOICE_HEADER, type TtsRequest } from '../../synthesis/tts-request.js'
import { streamedWav, streamWav, wavOfSentences, wavSamples } from '../../synthesis/wav-speech.js'
import type { ChorusState } from '../context.js'
import type { ServiceDeps } from '../deps.js'
import { readJsonBody, textBodyLimit } from '../json-body.js'
import { recordSpeech } from '../metrics.js'
import { outcome, requestSignal } from '../request-signal.js'
import { rawFraming, sendSpeech } from '../speech-response.js'

export function ttsRoutes (deps: ServiceDeps): Router<ChorusState> {
  const { config, synthesizer, metrics, cache } = deps
  const router = new Router<ChorusState>()

  async function respond (ctx: Context & { state: ChorusState }, request: TtsRequest, prepared: PreparedSynthesis, key: string | undefined, release: () => void): Promise<void> {
    const { signal, done } = requestSignal(ctx, config.timeoutMs)
    const started = performance.now()
    if (!request.stream) {
      try {
        const wav = wavOfSentences(prepared, await synthesizer.run(prepared, request.text, signal))
        if (key !== undefined) cache.set(key, { bytes: wav, sampleRate: prepared.sampleRate })
        recordSpeech(metrics, prepared, wavSamples(wav), started)
        ctx.type = 'audio/wav'
        ctx.body = wav
      } catch (error) {
        throw outcome(error, signal)
      } finally {
        done()
        release()
      }
      return
    }
    const stream = new PassThrough()
    ctx.type = 'audio/wav'
    ctx.body = stream
    // The response is under way: synthesis continues after this handler returns.
    streamWav(synthesizer, prepared, request.text, signal, bytes => stream.write(bytes)).then(samples => {
      recordSpeech(metrics, prepared, samples, started)
      stream.end()
      // Not cached: a streamed sentence's gain may differ from Piper's
      // normalisation (see sentence-pipeline.ts); the cache holds exact answers.
    }, error => {
      ctx.state.log.warn({ err: outcome(error, signal) }, 'streaming synthesis stopped')
      stream.destroy()
    }).finally(() => {
      done()
      release()
    })
  }

  async function tts (ctx: Context & { state: ChorusState }): Promise<void> {
    ctx.state.route = '/tts'
    const body = await readJsonBody(ctx, textBodyLimit(config.maxTextLength))
    const stream = typeof ctx.query.stream === 'string' ? ctx.query.stream : undefined
    const headerVoice = ctx.get(VOICE_HEADER)
    const request = parseTtsRequest(body, config.maxTextLength, stream, headerVoice === '' ? undefined : headerVoice)
    const prepared = synthesizer.prepare(request)
    const format = request.format ?? formatForAccept(ctx.get('Accept')) ?? 'wav'
    if (format !== 'wav') {
      await sendSpeech(ctx, deps, prepared, request.text, format, rawFraming(format))
      return
    }
    const key = cache.enabled ? speechCacheKey(prepared, request.text, 'wav') : undefined
    // A hit needs no worker, so it is served even when the queue is full.
    const hit = key === undefined ? undefined : cache.get(key)
    if (hit !== undefined) {
      metrics.cacheHits.inc()
      ctx.type = 'audio/wav'
      // A streaming client gets the same framing as a fresh stream.
      ctx.body = request.stream ? Readable.from(streamedWav(hit)) : hit.bytes
      return
    }
    if (key !== undefined) metrics.cacheMisses.inc()
    const release = synthesizer.admit()
    ctx.state.log.info({ voice: prepared.voice.name, characters: request.text.length, stream: request.stream }, 'synthesis')
    ctx.state.log.debug({ text: request.text }, 'synthesis text')
    await respond(ctx, request, prepared, key, release)
  }

  router.post('tts', '/tts', tts)
  router.post('tts-v1', '/v1/tts', tts)
  return router
}
