// Speech on an HTTP response, for every route: the speech service does the
// work; this waits for its first chunk (so a failure before any audio still
// gets its status and error body), then pipes the chunks, framed by the
// route, through Koa's stream pipeline, whose backpressure holds the
// synthesis back while the client is not reading.

import { Readable } from 'node:stream'
import { once } from 'node:events'
import type { Context } from 'koa'
import type { Speech, SpeechRequest, SpeechService } from '../synthesis/speech-service.js'
import type { TimingChunk } from '../synthesis/timing.js'
import { TimingAssembly } from '../synthesis/timing/wire.js'
import { SynthesisCancelledError } from '../synthesis/errors.js'
import { isChorusError } from '../errors.js'
import type { HeardLog } from '../synthesis/heard.js'
import type { ChorusState } from './context.js'
import { clientSignal } from './request-signal.js'

/** How encoded bytes go on the wire: as they are, or wrapped (SSE). */
export interface Framing {
  contentType?: string
  chunk: (bytes: Uint8Array) => Uint8Array | string
  /** A timing chunk's event, when the framing carries timing (SSE); else timing is not sent. */
  timing?: (chunk: TimingChunk) => string
  /** Written after the last chunk. */
  end?: () => string
}

const RAW: Framing = { chunk: bytes => bytes }

type SpeechContext = Context & { state: ChorusState }

async function * framed (ctx: SpeechContext, speech: Speech, framing: Framing, heard: HeardLog): AsyncGenerator<Uint8Array | string> {
  // How far the timing so far reaches: compressed audio is counted by it (heard.ts).
  let reachesMs = 0
  try {
    for await (const chunk of speech.chunks) {
      if (chunk.kind === 'audio') {
        heard.sent(chunk.bytes.length, reachesMs)
        yield framing.chunk(chunk.bytes)
        continue
      }
      heard.addWords(0, chunk.words, chunk.sampleRate)
      reachesMs = chunk.endSample * 1000 / chunk.sampleRate
      if (framing.timing !== undefined) yield framing.timing(chunk)
    }
    if (framing.end !== undefined) yield framing.end()
  } catch {
    // Logged where the speech's signal aborted (below).
    ctx.res.destroy()
  }
}

/** The status is gone with the first byte: a speech that stops cuts its
 * response, so the client can tell it from a complete answer. */
function cut (ctx: SpeechContext, reason: unknown): void {
  const log = ctx.state.log
  // A client that left is no fault of ours: no stack.
  if (reason instanceof SynthesisCancelledError) log.info({ reason: reason.message }, 'streaming synthesis stopped')
  else if (isChorusError(reason) && reason.expose) log.warn({ code: reason.code, reason: reason.message }, 'streaming synthesis stopped')
  else log.warn({ err: reason }, 'streaming synthesis stopped')
  ctx.res.destroy()
}

/** What a route asks for; the rest comes from the request's context. */
export type RouteSpeech = Omit<SpeechRequest, 'log' | 'signal' | 'delivered' | 'admission' | 'id'>

/** The speech's admission: the key's audio and concurrency quotas (429
 * before any work), its share and its audio's account. The speech service
 * frees its place once the response has closed. */
function admitted (ctx: SpeechContext): SpeechRequest['admission'] {
  const admission = ctx.state.admitted
  if (admission === undefined) throw new Error('A speech route ran without the admission middleware')
  return admission.speech()
}

/** Bytes per second of a raw format's audio (pcm, μ-law, A-law); undefined for others. */
function rawBytesPerSecond (request: RouteSpeech): number | undefined {
  if (request.format !== 'pcm') return undefined
  const { encoding } = request
  // 24 kHz unless asked: the pcm encoder's default (audio/pcm.ts, a worker's module).
  return (encoding?.ulaw === true || encoding?.alaw === true ? 1 : encoding?.float32 === true ? 4 : 2) * (encoding?.rate ?? 24_000)
}

export async function sendSpeech (ctx: SpeechContext, service: SpeechService, request: RouteSpeech, framing: Framing = RAW): Promise<void> {
  const admission = admitted(ctx)
  // What is sent, for GET /v1/heard/{request id}.
  const heard = service.heard.open(admission.tenant, ctx.state.requestId, rawBytesPerSecond(request))
  heard.addText(request.request.text)
  const client = clientSignal(ctx)
  // 'close' follows the last byte's hand-over to the socket, or a hang-up.
  const delivered = once(ctx.res, 'close')
  let speech: Speech
  try {
    speech = await service.open({ ...request, id: ctx.state.requestId, log: ctx.state.log, signal: client.signal, delivered, admission })
  } finally {
    delivered.then(client.done, client.done)
  }
  // A stalled client reads no chunk that could carry the stop: end its response here.
  speech.signal.addEventListener('abort', () => { if (!ctx.res.writableFinished) cut(ctx, speech.signal.reason) }, { once: true })
  ctx.set('X-Chorus-Voice', speech.voice)
  ctx.type = framing.contentType ?? speech.contentType
  ctx.body = Readable.from(framed(ctx, speech, framing, heard), { objectMode: false })
  if (speech.length !== undefined) ctx.length = speech.length
}

/** A whole answer with its timing: one JSON object, the audio base64-encoded
 * beside the events (the shape of Kokoro-FastAPI's captioned speech:
 * `audio`, `audio_format`, then the timing). The audio is bounded by
 * TTS_MAX_AUDIO_SECONDS, as a whole WAV answer is. */
export async function sendTimedJson (ctx: SpeechContext, service: SpeechService, request: RouteSpeech,
  answer?: (audio: Buffer, timing: TimingChunk[]) => unknown): Promise<void> {
  const admission = admitted(ctx)
  const client = clientSignal(ctx)
  const delivered = once(ctx.res, 'close')
  const audio: Uint8Array[] = []
  const timing = new TimingAssembly()
  const chunks: TimingChunk[] = []
  try {
    const speech = await service.open({ ...request, id: ctx.state.requestId, log: ctx.state.log, signal: client.signal, delivered, admission })
    ctx.set('X-Chorus-Voice', speech.voice)
    for await (const chunk of speech.chunks) {
      if (chunk.kind === 'audio') audio.push(chunk.bytes)
      else if (answer !== undefined) chunks.push(chunk)
      else timing.add(chunk)
    }
  } finally {
    delivered.then(client.done, client.done)
  }
  ctx.body = answer !== undefined ? answer(Buffer.concat(audio), chunks) : { audio: Buffer.concat(audio).toString('base64'), audio_format: request.format, ...timing.events }
}
