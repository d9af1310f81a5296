// One context: its text cut into pieces (text-cutter.ts), each piece spoken
// by the speech service in order, its chunks sent back as protocol messages.
// The service does admission, caching, metrics and encoding; this only
// translates. Closing a context aborts its speech's signal, which drops its
// queued sentences and terminates the inference running for it.

import type { Logger } from '../shared/logger.js'
import type { SpeechRequest, SpeechService } from '../synthesis/speech-service.js'
import type { WordTiming } from '../synthesis/timing.js'
import type { Tenant } from '../pool/tenant.js'
import type { TtsRequest } from '../synthesis/tts-request.js'
import { buildAlignment, coveredEnd, EMPTY_ALIGNMENT, type Alignment } from './alignment.js'
import type { OutputFormat } from './output-format.js'
import { TextCutter } from './text-cutter.js'

/** What a context needs from its socket. */
export interface ContextHost {
  speech: SpeechService
  log: Logger
  output: OutputFormat
  /** Resolves once the message was written to the socket: the next waits for it. */
  send: (message: Record<string, unknown>) => Promise<void>
  /** Text left the context's buffer (handed to synthesis, trimmed or dropped). */
  released: (characters: number) => void
  /** The context sent its last message (or was closed). */
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
  private ending = false
  private closed = false
  private waitTimer: NodeJS.Timeout | undefined
  /** Pieces spoken so far, for tests and logs. */
  spoken = 0
  /** Characters the host counts as held by this context. */
  private accounted = 0
  /** Word timing is asked for until a speech shows the voice gives none
   * (a request with timing passes the phrase cache by). */
  private wordTiming = true

  constructor (
    /** Undefined on the single-context endpoint. */
    readonly id: string | undefined,
    private readonly request: Omit<TtsRequest, 'text'>,
    private readonly options: { schedule: readonly number[], autoMode: boolean, syncAlignment?: boolean },
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
    if (this.ending || this.closed) return this.settle()
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

  flush (): void {
    this.enqueue(this.cutter.flush())
  }

  /** No more text: what is held is spoken, then the final message is sent. */
  end (): void {
    if (this.closed) return
    this.flush()
    this.ending = true
    void this.run()
  }

  /** Barge-in: everything held and running stops now. */
  close (): void {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.waitTimer)
    this.pieces.length = 0
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
    if (this.closed) return
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
        this.settle()
        await this.speak(text)
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
        this.close()
      }
    } finally {
      this.running = false
    }
  }

  private idField (): Record<string, string> {
    return this.id === undefined ? {} : { contextId: this.id }
  }

  private async speak (text: string): Promise<void> {
    const request: SpeechRequest = {
      request: { ...this.request, text },
      format: this.host.output.format,
      encoding: this.host.output.encoding,
      stream: true,
      log: this.host.log,
      signal: this.controller.signal,
      ...(this.wordTiming ? { timestamps: ['word'] } : {})
    }
    const release = this.host.admitSpeech()
    try {
      await this.speakAdmitted({ ...request, tenant: this.host.tenant }, text)
    } finally {
      release()
    }
  }

  private async speakAdmitted (request: SpeechRequest, text: string): Promise<void> {
    const speech = await this.host.speech.open(request)
    let covered = 0
    let timed = false
    let ended = true
    // Words not yet sent: a piece's timing may come before the previous
    // piece's last audio was encoded; both then ride on the next message.
    let pending: { words: WordTiming[], from: number, to: number, origin: number, rate: number } | undefined
    // sync_alignment: every audio message carries one (docs/websocket.md).
    const none = this.options.syncAlignment === true ? EMPTY_ALIGNMENT : null
    for await (const chunk of speech.chunks) {
      if (this.closed) {
        ended = false
        break
      }
      if (chunk.kind === 'timing') {
        timed = true
        // A piece with no word in it: no alignment, rather than one of zeros.
        if (chunk.words.length === 0) continue
        const end = coveredEnd(text, chunk.words)
        pending ??= { words: [], from: covered, to: end, origin: chunk.startSample, rate: chunk.sampleRate }
        pending.words.push(...chunk.words)
        pending.to = end
        covered = end
        continue
      }
      if (chunk.bytes.length === 0) continue
      const alignment: Alignment | null = pending === undefined ? none : buildAlignment(text, pending.words, pending.rate, pending.from, pending.to, pending.origin)
      pending = undefined
      const message: AudioMessage = { audio: Buffer.from(chunk.bytes).toString('base64'), isFinal: false, alignment, normalizedAlignment: alignment }
      await this.host.send({ ...message, ...this.idField() })
    }
    if (ended && !timed && request.timestamps !== undefined) this.wordTiming = false
  }
}
