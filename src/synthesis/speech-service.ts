// The one path from a checked request to ordered bytes, under every
// protocol (POST /tts, the OpenAI endpoint, chorus say): the voice (resolved
// once), the phrase cache, admission, the request's log line, one abort
// signal for its time and its reader, the run, the encoding, metrics and the
// release. A protocol adapter calls open(), which settles once the first
// chunk exists (so a failure before any audio still gets its status), and
// then reads the chunks at its own pace: synthesis waits for it (chunk-queue.ts).
//
// The request stays admitted (counted against TTS_MAX_PENDING) and its time
// (TTS_TIMEOUT_SECONDS) runs until its work has stopped and its last byte
// was delivered, so a reader who does not read cannot hold the service
// beyond its time.

import type { EncoderOptions } from '../audio/encoder.js'
import type { EncoderPool } from '../audio/encoder-pool.js'
import { FORMAT_INFO, type AudioFormat } from '../audio/formats.js'
import { SynthesisCancelledError } from '../engine/errors.js'
import type { Logger } from '../shared/logger.js'
import { PlaybackQueue } from '../pool/schedule-clock.js'
import { WAV_HEADER_BYTES, wavHeader } from '../engine/index.js'
import { isChorusError } from '../errors.js'
import { AnswerSpool } from './answer-spool.js'
import { PlaybackRegistry } from './playback-registry.js'
import { HeardRegistry, type PlaybackClock } from './heard.js'
import { AudioCeiling } from './audio-ceiling.js'
import { ByteBudget } from './byte-budget.js'
import { ChunkQueue } from './chunk-queue.js'
import type { LookAhead } from './look-ahead.js'
import { StreamDemand } from './stream-demand.js'
import { encodeSpeech } from './encoded-speech.js'
import { requestTimedOut } from './errors.js'
import type { SpeechAdmission } from './speech-admission.js'
import { speechCacheKey, type CachedAudio, type PhraseCache } from './phrase-cache.js'
import type { DefaultVoiceStatus, PreparedSynthesis, Synthesizer } from './synthesizer.js'
import { timingBytes, type TimingChunk, type TimingKind } from './timing.js'
import type { TtsRequest } from './tts-request.js'
import type { Lexicon } from '../text/lexicon/lexicon.js'
import { streamedWav, streamWav, wholeWav, type SpeechRun } from './wav-speech.js'

export type { PlaybackQueue }

/** What a speech yields, in order: audio, and (when asked for) before the
 * audio of each sentence (or piece of a long one) the timing that covers it. */
export type SpeechChunk = { kind: 'audio', bytes: Uint8Array } | TimingChunk

export interface SpeechRequest {
  request: TtsRequest
  format: AudioFormat
  /** WAV only: an open-ended header at once, then PCM as it is made; else
   * one whole file of exact length. Other formats always stream. */
  stream: boolean
  /** Compressed formats: a rate, bit rate or μ-law beyond the format's
   * defaults (the WebSocket's output_format). */
  encoding?: EncoderOptions
  /** The request's logger. */
  log: Logger
  /** Aborts when the reader has gone; its reason is the error the speech stops with. */
  signal?: AbortSignal
  /** Settles when the bytes read have reached the client (an HTTP
   * response's end): the request counts as pending until then. */
  delivered?: Promise<unknown>
  /** Its admission (src/access/): whose share of the inference slots its
   * work counts in, who its audio is counted against, and the release of
   * its place, called once the request is done. */
  admission: SpeechAdmission
  /** Timing to yield beside the audio; none when unset or empty. The
   * phrase cache is then passed by (it holds audio only). */
  timestamps?: readonly TimingKind[]
  /** The request's id (X-Request-Id): a later streamed request of the same
   * tenant may name it in `after` to be heard after this one. */
  id?: string
  /** The queue of answers one listener hears in order that this one joins
   * (a WebSocket context's pieces); else the one `request.after` names. */
  playback?: PlaybackQueue
}

export interface Speech {
  /** The voice that speaks. */
  voice: string
  contentType: string
  /** The bytes in all, when known before the first (a whole WAV file). */
  length?: number
  /** Aborts when the speech stops before its end (its time ran out, the
   * reader left, a failure); the reason is the typed error. An adapter ends
   * its response on it, since a stalled reader is not reading chunks. */
  signal: AbortSignal
  /** Read once. Leaving early (return, break) stops the work. */
  chunks: AsyncIterableIterator<SpeechChunk>
  /** Live counts: how far synthesis ran ahead of the reader. */
  progress: SpeechProgress
  /** Settles once its audio is all made (or its work stopped), whether or
   * not the reader has taken it yet. */
  produced: Promise<void>
}

export interface SpeechProgress {
  /** Sentences whose work was queued (Piper voices). */
  readonly sentencesStarted: number
  /** Chunks made, and taken by the reader. */
  readonly chunksMade: number
  readonly chunksRead: number
  /** Timing chunks among those made (0: the voice gave none). */
  readonly timingChunksMade: number
}

export interface SpeechSettings {
  /** A request's time from admission to its last byte. */
  timeoutMs: number
  /** TTS_MAX_AUDIO_SECONDS. */
  maxAudioSeconds: number
  /** TTS_RESPONSE_BUFFER_BYTES: made and not yet read, per response. */
  responseBufferBytes: number
  /** TTS_BUFFER_BYTES: the same, every response together. */
  bufferBytes: number
  /** TTS_SPOOL_DIR: where a whole answer's bytes beyond its memory go until it is sent. */
  spoolDir: string
  /** TTS_STREAM_ADMISSION: listeners of streams admitted per audio second
   * per second the slots make; 0 admits all (stream-demand.ts). */
  streamAdmission: number
}

/** What the service counts; the metrics registry lives with the HTTP layer. */
export interface SpeechMetrics {
  cacheHit: () => void
  cacheMiss: () => void
  /** One synthesis: its voice, audio seconds and seconds taken. */
  speech: (voice: string, audioSeconds: number, elapsedSeconds: number) => void
}

/** What the protocols ask of the installed voices (voice-resolver.ts, GET /v1/models). */
export type VoiceQueries = Pick<SpeechService, 'voiceNames' | 'defaultVoice' | 'speakerOf'>

/** The abort's reason when the work was stopped from outside, else the error. */
function outcome (error: unknown, signal: AbortSignal): unknown {
  return signal.aborted && error instanceof SynthesisCancelledError ? signal.reason : error
}

function audio (bytes: Uint8Array): SpeechChunk {
  return { kind: 'audio', bytes }
}

export class SpeechService {
  /** Bytes made and not yet read, every response together. */
  readonly buffered: ByteBudget
  /** Streamed requests by id, for `after` (playback-registry.ts). */
  private readonly playbacks = new PlaybackRegistry()
  /** What was sent of each HTTP answer, by tenant and request id, for GET /v1/heard/{id} (heard.ts). */
  readonly heard: HeardRegistry
  /** Streams open per listener, against what the slots make. */
  readonly streams: StreamDemand

  constructor (
    private readonly settings: SpeechSettings,
    private readonly synthesizer: Synthesizer,
    private readonly cache: PhraseCache,
    private readonly encoders: EncoderPool,
    private readonly metrics: SpeechMetrics,
    /** The clock an unreported playback position is estimated on: a test's, or the service's. */
    readonly playbackClock: PlaybackClock = () => performance.now()
  ) {
    this.buffered = new ByteBudget(settings.bufferBytes)
    this.heard = new HeardRegistry(playbackClock)
    this.streams = new StreamDemand({ ratio: settings.streamAdmission, capacity: () => synthesizer.streamCapacity(), retryAfterSeconds: synthesizer.retryAfterSeconds })
  }

  /** How far a stream's work runs ahead of its listener: sentences of one
   * answer, pieces of a WebSocket context (look-ahead.ts). */
  get lookAhead (): LookAhead {
    return this.synthesizer.lookAhead
  }

  /** Requests admitted and not yet done (against TTS_MAX_PENDING). */
  get pending (): number {
    return this.synthesizer.pending
  }

  /** Installed voice names plus the built-in voice, sorted. */
  voiceNames (): string[] {
    return this.synthesizer.voiceNames()
  }

  /** Which voice a request without `voice` gets, and whether it is installed. */
  defaultVoice (): DefaultVoiceStatus {
    return this.synthesizer.defaultVoice()
  }

  /** The speaker of `voice` that `requested` names (a speaker's name, or an
   * id below the voice's count); undefined for none, or a voice without speakers. */
  speakerOf (voice: string, requested: string): number | string | undefined {
    const resolved = this.synthesizer.resolveVoice(voice)
    if (resolved.kind !== 'piper') return undefined
    const config = resolved.voice.config
    if (config.speakerIdMap[requested] !== undefined) return requested
    if (/^\d+$/.test(requested) && Number(requested) < config.numSpeakers) return Number(requested)
    return undefined
  }

  /** Checks a lexicon's phonemes at its install (Synthesizer.checkLexicon). */
  checkLexicon (lexicon: Lexicon, voice?: string): void {
    this.synthesizer.checkLexicon(lexicon, voice)
  }

  /** A queue of answers one listener hears in order (SpeechRequest.playback). */
  playbackQueue (): PlaybackQueue {
    return new PlaybackQueue()
  }

  /** Checks the request against its voice (400 on bad input) without any
   * work; the lexicons of `tenant` (a key's name) apply to it. */
  prepare (request: TtsRequest, tenant?: string): PreparedSynthesis {
    return this.synthesizer.prepare(request, tenant)
  }

  /** Settles with the speech once its first chunk exists; rejects with the
   * typed error of a failure before it. Its admission is released once the
   * request is done, or at once when it fails before its first chunk. */
  async open (options: SpeechRequest): Promise<Speech> {
    try {
      return await this.begin(options)
    } catch (error) {
      options.admission.release()
      throw error
    }
  }

  private async begin (options: SpeechRequest): Promise<Speech> {
    const { request, format } = options
    // Only a format whose codec the machine may lack waits to find out.
    if (FORMAT_INFO[format].needsAvcodec === true) await this.encoders.assertAvailable(format)
    const prepared = this.prepare(request, options.admission.tenant)
    const stream = format !== 'wav' || options.stream
    const encoded = options.encoding === undefined ? format : `${format} ${JSON.stringify(options.encoding)}`
    const key = this.cache.enabled && (options.timestamps ?? []).length === 0 ? speechCacheKey(prepared, prepared.cacheText, encoded) : undefined
    // A hit needs no worker, so it is served even when the queue is full.
    const hit = key === undefined ? undefined : this.cache.get(key)
    if (hit !== undefined) {
      this.metrics.cacheHit()
      return this.fromCache(options, prepared, hit, stream)
    }
    if (key !== undefined) this.metrics.cacheMiss()
    const queue = this.queueOf(options, stream)
    const release = this.admit(stream ? queue ?? {} : undefined, queue?.playing() ?? false)
    options.log.info({ voice: prepared.voice.name, characters: request.text.length, format, stream }, 'synthesis')
    options.log.debug({ text: request.text }, 'synthesis text')
    return await this.run(options, prepared, stream, key, release, queue)
  }

  /** A place among the requests in progress (TTS_MAX_PENDING) and, for a
   * stream, among the listeners the slots can keep fed; 503 when either is full. */
  private admit (listener: object | undefined, heard: boolean): () => void {
    const stream = listener === undefined ? () => {} : this.streams.admit(listener, heard)
    try {
      const pending = this.synthesizer.admit()
      return () => {
        pending()
        stream()
      }
    } catch (error) {
      stream()
      throw error
    }
  }

  /** A phrase-cache hit: no work, no audio charged; its place is held
   * until its reader is done and its bytes were delivered, as a run's. */
  private fromCache (options: SpeechRequest, prepared: PreparedSynthesis, hit: CachedAudio, stream: boolean): Speech {
    const parts = options.format === 'wav' && stream ? streamedWav(hit) : [hit.bytes]
    let readerDone: () => void = () => {}
    const read = new Promise<void>(resolve => { readerDone = resolve })
    void Promise.allSettled([read, options.delivered]).then(() => options.admission.release())
    let next = 0
    // Not a generator: one returned before its first next() never runs its finally.
    const chunks: AsyncIterableIterator<SpeechChunk> = {
      [Symbol.asyncIterator] () { return this },
      async next () {
        const part = parts[next++]
        if (part !== undefined) return { done: false, value: audio(part) }
        readerDone()
        return { done: true, value: undefined }
      },
      async return () {
        readerDone()
        return { done: true, value: undefined }
      }
    }
    const progress = { sentencesStarted: 0, chunksMade: parts.length, chunksRead: 0, timingChunksMade: 0 }
    return { voice: prepared.voice.name, contentType: FORMAT_INFO[options.format].contentType, ...(stream ? {} : { length: hit.bytes.length }), signal: new AbortController().signal, chunks, progress, produced: Promise.resolve() }
  }

  /** A stream's playback queue: its caller's, or that of the request it names in `after`. */
  private queueOf (options: SpeechRequest, stream: boolean): PlaybackQueue | undefined {
    if (options.playback !== undefined || !stream) return options.playback
    if (options.id === undefined && options.request.after === undefined) return undefined
    return this.playbacks.queueFor(options.admission.tenant, options.id, options.request.after)
  }

  private async run (options: SpeechRequest, prepared: PreparedSynthesis, stream: boolean, key: string | undefined, release: () => void,
    playback: PlaybackQueue | undefined): Promise<Speech> {
    const { controller, dispose } = requestSignal(options.signal, this.settings.timeoutMs)
    const signal = controller.signal
    const queue = new ChunkQueue<SpeechChunk>([new ByteBudget(this.settings.responseBufferBytes), this.buffered], signal)
    const ceiling = new AudioCeiling(this.settings.maxAudioSeconds, prepared)
    const copy = new CacheCopy(this.cache, key, prepared.sampleRate)
    const write = async (bytes: Uint8Array): Promise<void> => {
      copy.add(bytes)
      await queue.push(audio(bytes), bytes.length)
    }
    let length: number | undefined
    const counts = { sentencesStarted: 0, timingChunksMade: 0 }
    const progress = speechProgress(queue, counts)
    // Made now, before any wait: the listener's time starts at arrival.
    const clock = this.synthesizer.clockFor(prepared, stream, playback)
    const kinds = new Set(options.timestamps ?? [])
    const timing = kinds.size === 0 ? {} : { timing: { kinds, push: async (chunk: TimingChunk) => { counts.timingChunksMade++; await queue.push(chunk, timingBytes(chunk)) } } }
    const speechRun: SpeechRun = { synthesizer: this.synthesizer, prepared, text: prepared.spoken.text, signal, ceiling, write, onStart: () => { counts.sentencesStarted++ }, tenant: options.admission.share, clock, ...timing }
    const started = performance.now()
    const produced = this.produce(speechRun, options, stream, copy, queue, total => { length = total })
      .then(() => this.metrics.speech(prepared.voice.name, ceiling.samples / prepared.sampleRate, (performance.now() - started) / 1000))
      .then(() => queue.end(), (error: unknown) => {
        const reason = outcome(error, signal)
        queue.fail(reason)
        // Stops whatever work is still queued for this request.
        if (!signal.aborted) controller.abort(reason)
      }).finally(() => options.admission.charge(ceiling.samples / prepared.sampleRate))

    // The request is done when its work has stopped, its reader has stopped
    // reading (or it was stopped) and its bytes were delivered.
    let readerDone: () => void = () => {}
    const read = new Promise<void>(resolve => { readerDone = resolve })
    signal.addEventListener('abort', () => readerDone(), { once: true })
    void Promise.allSettled([produced, read, options.delivered]).then(() => {
      dispose()
      queue.drop()
      release()
      options.admission.release()
    })
    const stop = (): void => {
      queue.drop()
      // A reader who left before the end: the work for it stops.
      if (!signal.aborted) controller.abort(new SynthesisCancelledError('The reader stopped reading'))
      readerDone()
    }
    try {
      await queue.ready()
    } catch (error) {
      stop()
      throw error
    }
    const chunks = chunkReader(queue, () => readerDone(), stop)
    return { voice: prepared.voice.name, contentType: FORMAT_INFO[options.format].contentType, ...(length !== undefined ? { length } : {}), signal, chunks, progress, produced }
  }

  /** Makes the answer in its format into the queue: encoded, a streamed WAV,
   * or a whole WAV whose length is told (`onLength`) with its first bytes. */
  private async produce (run: SpeechRun, options: SpeechRequest, stream: boolean, copy: CacheCopy, queue: ChunkQueue<SpeechChunk>,
    onLength: (total: number) => void): Promise<void> {
    if (options.format !== 'wav') {
      await encodeSpeech(run, this.encoders, options.format, options.encoding)
      copy.keep()
    } else if (stream) {
      // Not cached: a streamed sentence's gain may differ from Piper's
      // normalisation (see sentence-pipeline.ts); the cache holds exact answers.
      copy.giveUp()
      await streamWav(run)
    } else {
      let sent = 0
      await this.sendWhole(run, options.log, async (bytes, total) => {
        onLength(total)
        sent += bytes.length
        copy.add(bytes)
        // Kept before the last byte leaves: a client that has its Content-Length
        // is done then, and may ask again at once.
        if (sent === total) copy.keep()
        await queue.push(audio(bytes), bytes.length)
      })
    }
  }

  /** A whole WAV file: its samples spooled until the last is made, then the
   * header with the exact length and the samples, each piece awaited by
   * `send` (told the file's length with the first). */
  private async sendWhole (run: SpeechRun, log: Logger, send: (bytes: Uint8Array, length: number) => Promise<void>): Promise<void> {
    const spool = new AnswerSpool({ memoryBytes: this.settings.responseBufferBytes, budget: this.buffered, dir: this.settings.spoolDir })
    try {
      await wholeWav(run, spool)
      const length = WAV_HEADER_BYTES + spool.length
      if (spool.spilledBytes > 0) log.debug({ bytes: length, spilled: spool.spilledBytes }, 'whole answer spooled to disk')
      await send(wavHeader(spool.length, run.prepared.sampleRate), length)
      for await (const piece of spool.read()) await send(piece, length)
    } catch (error) {
      if (isChorusError(error) && error.code === 'ERR_INSUFFICIENT_STORAGE') log.warn({ err: error.cause, dir: this.settings.spoolDir }, 'cannot spool a whole answer')
      throw error
    } finally {
      await spool.close()
    }
  }
}

/** The request's own signal: the caller's abort and the request's time
 * (TTS_TIMEOUT_SECONDS) both stop it; `dispose` lets go of both. */
function requestSignal (caller: AbortSignal | undefined, timeoutMs: number): { controller: AbortController, dispose: () => void } {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(requestTimedOut()), timeoutMs)
  const onCallerAbort = (): void => controller.abort(caller?.reason)
  caller?.addEventListener('abort', onCallerAbort, { once: true })
  if (caller?.aborted === true) onCallerAbort()
  return {
    controller,
    dispose: () => {
      clearTimeout(timer)
      caller?.removeEventListener('abort', onCallerAbort)
    }
  }
}

/** A copy of an answer's bytes for the phrase cache, given up once it is past the cache's share. */
class CacheCopy {
  private kept: Uint8Array[] | undefined
  private bytes = 0

  constructor (private readonly cache: PhraseCache, private readonly key: string | undefined, private readonly sampleRate: number) {
    this.kept = key === undefined ? undefined : []
  }

  add (bytes: Uint8Array): void {
    if (this.kept === undefined) return
    this.bytes += bytes.length
    if (this.cache.fits(this.bytes)) this.kept.push(bytes)
    else this.kept = undefined
  }

  giveUp (): void {
    this.kept = undefined
  }

  keep (): void {
    if (this.key !== undefined && this.kept !== undefined) this.cache.set(this.key, { bytes: Buffer.concat(this.kept), sampleRate: this.sampleRate })
  }
}

/** A live view of an answer's progress: the queue's counts and the run's. */
function speechProgress (queue: ChunkQueue<SpeechChunk>, counts: { sentencesStarted: number, timingChunksMade: number }): SpeechProgress {
  return {
    get sentencesStarted () { return counts.sentencesStarted },
    get chunksMade () { return queue.pushed },
    get chunksRead () { return queue.taken },
    get timingChunksMade () { return counts.timingChunksMade }
  }
}

/** The reader's side of an answer: its chunks in order; `done` at the end,
 * `stop` when the reader leaves early or a chunk fails. */
function chunkReader (queue: ChunkQueue<SpeechChunk>, done: () => void, stop: () => void): AsyncIterableIterator<SpeechChunk> {
  return {
    [Symbol.asyncIterator] () { return this },
    async next () {
      try {
        const chunk = await queue.next()
        if (chunk !== undefined) return { done: false, value: chunk }
        done()
        return { done: true, value: undefined }
      } catch (error) {
        stop()
        throw error
      }
    },
    async return () {
      stop()
      return { done: true, value: undefined }
    }
  }
}
