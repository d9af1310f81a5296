// POST /tts and POST /v1/tts: JSON in, audio/wav out. Non-streaming answers
// carry an exact Content-Length; streaming ones (`"stream": true` or
// ?stream=1) send the WAV header at once, with an open-ended length, then
// each sentence's PCM as soon as it and all earlier sentences are ready.
// A compressed format (`format`, else the Accept header) always streams.

import { PassThrough, Readable } from 'node:stream'
import Router from '@koa/router'
import type { Context } from 'koa'
import { formatForAccept } from '../../audio/formats.js'
import { encodeWavSentences, pcmBytes, silenceLength, UNKNOWN_LENGTH, wavHeader } from '../../engine/index.js'
import { cacheKey, type CachedAudio } from '../../synthesis/phrase-cache.js'
import type { PreparedSynthesis } from '../../synthesis/synthesizer.js'
import { parseTtsRequest, VOICE_HEADER, type TtsRequest } from '../../synthesis/tts-request.js'
import type { ChorusState } from '../context.js'
import type { ServiceDeps } from '../deps.js'
import { readJsonBody, textBodyLimit } from '../json-body.js'
import { outcome, requestSignal } from '../request-signal.js'
import { rawFraming, sendSpeech } from '../speech-response.js'

export function ttsRoutes (deps: ServiceDeps): Router<ChorusState> {
  const { config, synthesizer, metrics, cache } = deps
  const router = new Router<ChorusState>()

  function record (prepared: PreparedSynthesis, samples: number, startedMs: number): void {
    const seconds = samples / prepared.sampleRate
    metrics.audioSeconds.inc({ voice: prepared.voice.name }, seconds)
    if (seconds > 0) metrics.realTimeFactor.observe({ voice: prepared.voice.name }, (performance.now() - startedMs) / 1000 / seconds)
  }

  function sendCached (ctx: Context, hit: CachedAudio, stream: boolean): void {
    ctx.type = 'audio/wav'
    // A streaming client gets the same framing as a fresh stream.
    ctx.body = stream ? Readable.from([wavHeader(UNKNOWN_LENGTH, hit.sampleRate), hit.bytes.subarray(44)]) : hit.bytes
  }

  function remember (key: string | undefined, sentences: Int16Array[], prepared: PreparedSynthesis, silence: number): Buffer {
    const wav = encodeWavSentences(sentences, silence, prepared.sampleRate)
    if (key !== undefined) cache.set(key, { bytes: wav, sampleRate: prepared.sampleRate })
    return wav
  }

  async function respond (ctx: Context & { state: ChorusState }, request: TtsRequest, prepared: PreparedSynthesis, key: string | undefined, release: () => void): Promise<void> {
    const { signal, done } = requestSignal(ctx, config.timeoutMs)
    const started = performance.now()
    const silence = silenceLength(prepared.sampleRate, prepared.settings.sentenceSilence)
    if (!request.stream) {
      try {
        const sentences = await synthesizer.run(prepared, request.text, signal)
        const wav = remember(key, sentences, prepared, silence)
        record(prepared, (wav.length - 44) / 2, started)
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
    stream.write(wavHeader(UNKNOWN_LENGTH, prepared.sampleRate))
    let samples = 0
    // The response is under way: synthesis continues after this handler returns.
    synthesizer.run(prepared, request.text, signal, (pcm, sentence, chunk) => {
      const gap = sentence > 0 && chunk === 0 ? silence : 0
      if (gap > 0) stream.write(Buffer.alloc(gap * 2))
      stream.write(pcmBytes(pcm))
      samples += pcm.length + gap
    }).then(() => {
      record(prepared, samples, started)
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
    const version = prepared.voice.kind === 'piper' ? prepared.voice.voice.version : 'builtin'
    const key = cache.enabled ? cacheKey(prepared.voice.name, version, prepared.settings, request.text) : undefined
    // A hit needs no worker, so it is served even when the queue is full.
    const hit = key === undefined ? undefined : cache.get(key)
    if (hit !== undefined) {
      metrics.cacheHits.inc()
      sendCached(ctx, hit, request.stream)
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
