// One context: its text cut into pieces (text-cutter.ts), each piece spoken
// by the speech service in order, its chunks sent back as protocol messages.
// The service does admission, caching, metrics and encoding; this only
// translates.
//
// Two ways to stop, as ElevenLabs' reference has them. close() is the
// client's close_context (and close_socket): text up to the last flush is
// still spoken, then isFinal; text after it is dropped, and when nothing
// flushed is left the context stops at once (barge-in). abort() is a socket
// gone, timed out or shutting down: everything stops now. Stopping at once
// aborts the speech's signal, which drops its queued sentences and
// terminates the inference running for it.

import type { Logger } from '../shared/logger.js'
import type { SpeechChunk, SpeechRequest, SpeechService } from '../synthesis/speech-service.js'
import type { TimingChunk, TimingKind } from '../synthesis/timing.js'
import type { Tenant } from '../pool/tenant.js'
import type { TtsRequest } from '../synthesis/tts-request.js'
import { buildAlignment, coveredEnd, type Alignment } from './alignment.js'
import type { OutputFormat } from './output-format.js'
import { TextCutter } from './text-cutter.js'

/** Until the timing work is merged, SpeechRequest has no `timestamps` and
 * yields no timing chunks: alignment is then null. */
type TimedSpeechRequest = SpeechRequest & { timestamps?: readonly TimingKind[] }

/** What a context needs from its socket. */
export interface ContextHost {
  speech: SpeechService
  log: Logger
  output: OutputFormat
  /** Resolves once the message was written to the socket: the next waits for it. */
  send: (message: Record<string, unknown>) => Promise<void>
  /** Text left the context's buffer (handed to synthesis, trimmed or dropped). */
  released: (characters: number) => void
  /** The context sent its last message (or was aborted). */
  finished: (context: StreamContext) => void
  /** TTS_WS_TEXT_WAIT_MS: a wait this long without new text cuts what is held. */
  textWaitMs: number
  /** The socket's key: its share of inference slots. */
  tenant: Tenant
  /** Admits one speech against the key's quotas (429 beyond); returns its release. */
  admitSpeech: () => () => void
}

export interface AudioMessage {
  audio: string
  isFinal: false
  alignment: Alignment | null
  normalizedAlignment: Alignment | null
}

export class StreamContext {
  private readonly cutter: TextCutter
  private readonly pieces: string[] = []
  private readonly controller = new AbortController()
  private running = false
  /** Speak what is held, then send isFinal. */
  private ending = false
  /** The client closed the context: no more text; what was flushed is still spoken. */
  private closing = false
  /** Stopped: nothing more is spoken or sent. */
  private closed = false
  /** How many of the queued pieces (from the head) were cut at or before the last flush. */
  private flushedPieces = 0
  /** The piece being spoken lies before the last flush. */
  private speakingFlushed = false
  private waitTimer: NodeJS.Timeout | undefined
  /** Pieces spoken so far, for tests and logs. */
  spoken = 0
  /** Characters the host counts as held by this context. */
  private accounted = 0

  constructor (
    /** Undefined on the single-context endpoint. */
    readonly id: string | undefined,
    private readonly request: Omit<TtsRequest, 'text'>,
    options: { schedule: readonly number[], autoMode: boolean },
    private readonly host: ContextHost
  ) {
    this.cutter = new TextCutter(options)
  }

  /** Characters held: not yet cut, or cut and not yet handed to synthesis. */
  get held (): number {
    return this.cutter.length + this.pieces.reduce((sum, p) => sum + p.length, 0)
  }

  /** The host has counted `text` against its limits: the context releases it as it is spoken. */
  add (text: string, tryTrigger: boolean): void {
    this.accounted += text.length
    if (this.ending || this.closing || this.closed) return this.settle()
    this.enqueue(this.cutter.push(text, tryTrigger))
    this.armWait()
  }

  /** Tells the host what left the buffer (cut pieces taken, trimmed spaces). */
  private settle (): void {
    const held = this.closed ? 0 : this.held
    if (held === this.accounted) return
    this.host.released(this.accounted - held)
    this.accounted = held
  }

  /** Everything held is cut now; close() will still speak it. */
  flush (): void {
    this.enqueue(this.cutter.flush())
    this.flushedPieces = this.pieces.length
    if (this.running) this.speakingFlushed = true
  }

  /** No more text: what is held is spoken, then the final message is sent. */
  end (): void {
    if (this.closed) return
    this.flush()
    this.ending = true
    void this.run()
  }

  /**
   * close_context: the text flushed so far is spoken to its end, then
   * isFinal is sent; text after the last flush is dropped. With nothing
   * flushed left, that is barge-in: the running inference is terminated and
   * isFinal goes out at once.
   */
  close (): void {
    if (this.closed || this.closing) return
    this.closing = true
    clearTimeout(this.waitTimer)
    this.cutter.flush()
    this.pieces.length = this.flushedPieces
    this.settle()
    if (this.pieces.length > 0 || (this.running && this.speakingFlushed)) {
      this.ending = true
      void this.run()
      return
    }
    // Queued before abort() tells the host, which may then close the socket.
    this.host.send({ isFinal: true, ...this.idField() }).catch(() => {})
    this.abort()
  }

  /** The socket is gone (or failed): everything held and running stops now, nothing more is sent. */
  abort (): void {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.waitTimer)
    this.pieces.length = 0
    this.flushedPieces = 0
    this.cutter.flush()
    this.settle()
    this.controller.abort()
    this.host.finished(this)
  }

  private armWait (): void {
    clearTimeout(this.waitTimer)
    if (this.cutter.length === 0) return
    this.waitTimer = setTimeout(() => this.enqueue(this.cutter.idle()), this.host.textWaitMs)
  }

  private enqueue (pieces: string[]): void {
    if (this.closed || this.closing) return
    // Cut pieces are still held until their synthesis starts.
    this.pieces.push(...pieces)
    this.settle()
    if (pieces.length > 0) void this.run()
  }

  private async run (): Promise<void> {
    if (this.running || this.closed) return
    this.running = true
    try {
      while (this.pieces.length > 0 && !this.closed) {
        const text = this.pieces.shift() as string
        this.speakingFlushed = this.flushedPieces > 0
        if (this.speakingFlushed) this.flushedPieces--
        this.settle()
        await this.speak(text)
        this.speakingFlushed = false
        this.spoken++
      }
      if (this.ending && !this.closed && this.cutter.length === 0) {
        this.closed = true
        await this.host.send({ isFinal: true, ...this.idField() })
        this.host.finished(this)
      }
    } catch (error) {
      if (!this.closed) {
        this.host.log.debug({ err: error, context: this.id }, 'context stopped')
        const typed = error as { message?: string, code?: string, expose?: boolean }
        const message = typed.expose === true ? String(typed.message) : 'Synthesis failed'
        // The socket may be gone; nothing more to tell then.
        await this.host.send({ error: message, code: typed.code ?? 'ERR_INTERNAL', ...this.idField() }).catch(() => {})
        this.abort()
      }
    } finally {
      this.running = false
    }
  }

  private idField (): Record<string, string> {
    return this.id === undefined ? {} : { contextId: this.id }
  }

  private async speak (text: string): Promise<void> {
    const request: TimedSpeechRequest = {
      request: { ...this.request, text },
      format: this.host.output.format,
      encoding: this.host.output.encoding,
      stream: true,
      log: this.host.log,
      signal: this.controller.signal,
      timestamps: ['word']
    }
    const release = this.host.admitSpeech()
    try {
      await this.speakAdmitted({ ...request, tenant: this.host.tenant }, text)
    } finally {
      release()
    }
  }

  private async speakAdmitted (request: TimedSpeechRequest, text: string): Promise<void> {
    const speech = await this.host.speech.open(request)
    let covered = 0
    let alignment: Alignment | null = null
    // Widened: once timing is merged, SpeechChunk includes TimingChunk.
    const chunks: AsyncIterable<SpeechChunk | TimingChunk> = speech.chunks
    for await (const chunk of chunks) {
      if (this.closed) break
      if (chunk.kind === 'timing') {
        // No word timing (not built yet for any voice: docs/timing.md): no alignment, rather than one of zeros.
        if (chunk.words.length === 0) continue
        const end = coveredEnd(text, chunk.words)
        alignment = buildAlignment(text, chunk.words, chunk.sampleRate, covered, end)
        covered = end
        continue
      }
      if (chunk.bytes.length === 0) continue
      const message: AudioMessage = { audio: Buffer.from(chunk.bytes).toString('base64'), isFinal: false, alignment, normalizedAlignment: alignment }
      await this.host.send({ ...message, ...this.idField() })
      alignment = null
    }
  }
}
