// One context: its text cut into pieces (text-cutter.ts), each piece spoken
// by the speech service, its chunks sent back as protocol messages in order.
// A piece is asked for as soon as the one before it has all its audio made
// (within the service's look-ahead, TTS_SENTENCE_WINDOW pieces counting the
// one being sent: the rule POST /tts?stream=1 keeps for its sentences,
// src/synthesis/look-ahead.ts), in one playback queue (the
// listener hears them in order): the next sentence is made while this one
// is still being sent and heard, and the scheduler knows it is due only when
// this one ends. Not sooner: a piece that made audio before the one ahead of
// it could hold the response buffers that one needs, and neither would move.
// The service does admission, caching, metrics and encoding; this holds no
// protocol: each socket's protocol (ElevenLabs', Cartesia's, Deepgram's)
// turns its events (audio with the words it covers, flushed, final, failed)
// into its own messages (ContextWire). It also keeps what was sent, so an
// interrupted context can tell what the listener heard (heard()).
//
// Two ways to stop, as ElevenLabs' reference has them. close() is the
// client's close_context (and close_socket): text up to the last flush is
// still spoken, then isFinal; text after it is dropped, and when nothing
// flushed is left the context stops at once (barge-in). abort() is a socket
// gone, timed out or shutting down: everything stops now. Stopping at once
// aborts the speech's signal, which drops its queued sentences and
// terminates the inference running for it.

import { isChorusError } from '../errors.js'
import { INTERNAL_ERROR_MESSAGE } from '../shared/json-errors.js'
import type { Logger } from '../shared/logger.js'
import type { PlaybackQueue, Speech, SpeechRequest, SpeechService } from '../synthesis/speech-service.js'
import type { SpeechAdmission } from '../synthesis/speech-admission.js'
import type { WordTiming } from '../synthesis/timing.js'
import type { TtsRequest } from '../synthesis/tts-request.js'
import { HeardLog, type Heard, type PlaybackClock } from '../synthesis/heard.js'
import { coveredEnd } from './alignment.js'
import type { OutputFormat } from './output-format.js'
import { TextCutter } from './text-cutter.js'

/** Words a piece's timing gave since the last audio event: text[from, to)
 * of the piece's text, their samples counted from the piece's start. */
export interface PieceWords {
  text: string
  words: WordTiming[]
  sampleRate: number
  from: number
  to: number
  /** Where the piece starts on the context's timeline (samples at sampleRate). */
  originSample: number
}

/** The protocol's side of a context: each call resolves once its message
 * was written to the socket; the next waits for it. */
export interface ContextWire {
  /** Audio, with the words that start in it when timing came before it. */
  audio: (bytes: Uint8Array, words: PieceWords | undefined) => Promise<void>
  /** The context spoke everything it was given (end(), or close() after the flushed text). */
  final: () => Promise<void>
  /** Synthesis failed (or was refused: `status` is the HTTP status it would have): the context stops after this. */
  failed: (message: string, code: string, status: number) => Promise<void>
  /** All audio of the text cut at flush number `n` (counted from 1) was sent. */
  flushed?: (n: number) => Promise<void>
}

/** What a context needs from its socket. */
export interface ContextHost {
  speech: SpeechService
  log: Logger
  output: OutputFormat
  wire: ContextWire
  /** The clock an unreported playback position is estimated on (heard.ts). */
  playbackClock: PlaybackClock
  /** Text left the context's buffer (handed to synthesis, trimmed or dropped). */
  released: (characters: number) => void
  /** The context sent its last message (or was aborted). */
  finished: (context: StreamContext) => void
  /** TTS_WS_TEXT_WAIT_MS: a wait this long without new text cuts what is held. */
  textWaitMs: number
  /** Admits one speech against the key's quotas (429 beyond): its share,
   * its audio's account and its place, freed by the speech service when it ends. */
  admitSpeech: () => SpeechAdmission
}

/** A piece whose speech was asked for. */
interface Piece {
  text: string
  /** Cut at or before the last flush: close_context still speaks it. */
  flushed: boolean
  controller: AbortController
  speech: Promise<Speech>
  release: () => void
  /** All its audio is made (or its work stopped). */
  produced: boolean
  /** Its speech was asked for word timing. */
  timed: boolean
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
  /** Pieces asked for, in order; the first is the one being sent. */
  private readonly started: Piece[] = []
  /** The order the listener hears the pieces in, for the scheduler. */
  private readonly queue: PlaybackQueue
  private waitTimer: NodeJS.Timeout | undefined
  /** Pieces spoken so far, for tests and logs. */
  spoken = 0
  /** Characters the host counts as held by this context. */
  private accounted = 0
  /** Word timing is asked for until a speech shows the voice gives none
   * (a request with timing passes the phrase cache by). */
  private wordTiming = true
  /** The samples of the pieces sent so far: alignment times count from the context's first audio. */
  private timelineSamples = 0
  /** Flushes so far, each with the count of pieces cut by then: flushed(n) once they are sent. */
  private flushes = 0
  private piecesCut = 0
  private readonly flushMarks: Array<{ n: number, pieces: number }> = []
  /** What was sent, for heard(). */
  private readonly heardLog: HeardLog

  constructor (
    /** Undefined on the single-context endpoint. */
    readonly id: string | undefined,
    private readonly request: Omit<TtsRequest, 'text'>,
    options: { schedule: readonly number[], autoMode: boolean, ssml?: boolean },
    private readonly host: ContextHost
  ) {
    this.cutter = new TextCutter(options)
    this.queue = host.speech.playbackQueue()
    this.heardLog = new HeardLog(host.playbackClock, host.output.bytesPerSecond)
  }

  /** What the listener heard of what was sent: at `playedMs` when the client reports it. */
  heard (playedMs?: number): Heard {
    return this.heardLog.heard(playedMs)
  }

  /** Speech under way that its client has not had all of yet: pieces cut and waiting, or started and not sent. */
  get working (): boolean {
    return !this.closed && (this.pieces.length > 0 || this.started.length > 0)
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
    for (const piece of this.started) piece.flushed = true
    this.flushMarks.push({ n: ++this.flushes, pieces: this.piecesCut })
    if (!this.running) void this.reachFlushes()
  }

  /** Tells the wire of each flush whose pieces were all sent. */
  private async reachFlushes (): Promise<void> {
    while (this.flushMarks.length > 0 && (this.flushMarks[0] as { pieces: number }).pieces <= this.spoken && !this.closed) {
      const mark = this.flushMarks.shift() as { n: number }
      await this.host.wire.flushed?.(mark.n)
    }
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
    // Asked for but after the last flush: dropped, its work stopped.
    for (const piece of this.started) if (!piece.flushed) piece.controller.abort()
    this.settle()
    if (this.pieces.length > 0 || this.started.some(piece => piece.flushed)) {
      this.ending = true
      void this.run()
      return
    }
    // Queued before abort() tells the host, which may then close the socket.
    this.host.wire.final().catch(() => {})
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
    for (const piece of this.started.splice(0)) piece.release()
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
    this.piecesCut += pieces.length
    this.settle()
    if (pieces.length === 0) return
    // While a piece is being sent, the new ones are asked for at once.
    if (this.running) this.askAhead()
    else void this.run()
  }

  private async run (): Promise<void> {
    if (this.running || this.closed) return
    this.running = true
    try {
      for (;;) {
        this.askAhead()
        const piece = this.started[0]
        if (piece === undefined || this.closed) break
        try {
          await this.send(piece)
        } finally {
          piece.release()
          if (this.started[0] === piece) this.started.shift()
        }
        this.spoken++
        await this.reachFlushes()
      }
      if (this.ending && !this.closed && this.cutter.length === 0 && this.pieces.length === 0) {
        this.closed = true
        await this.host.wire.final()
        this.host.finished(this)
      }
    } catch (error) {
      if (!this.closed) {
        // A refusal or a stop is the client's to read; anything else is a bug.
        if (isChorusError(error)) this.host.log.debug({ err: error, context: this.id }, 'context stopped')
        else this.host.log.error({ err: error, context: this.id }, 'context failed')
        const typed = error as { message?: string, code?: string, expose?: boolean, status?: number }
        const message = typed.expose === true ? String(typed.message) : INTERNAL_ERROR_MESSAGE
        // The socket may be gone; nothing more to tell then.
        await this.host.wire.failed(message, typed.code ?? 'ERR_INTERNAL', typed.status ?? 500).catch(() => {})
        this.abort()
      }
    } finally {
      this.running = false
    }
  }

  /**
   * Asks for the queued pieces' speech within the service's look-ahead
   * (each holds at most its response buffer, TTS_RESPONSE_BUFFER_BYTES,
   * until it is sent). Only the piece to send next must be admitted now:
   * one further ahead that the key's quota refuses waits for its turn.
   */
  private askAhead (): void {
    // started[0] is the one being sent: index started.length is the next to ask for.
    while (this.pieces.length > 0 && this.host.speech.lookAhead.allows(this.started.length, 0) && !this.closed) {
      if (this.started.some(piece => !piece.produced)) return
      let admission: SpeechAdmission
      try {
        admission = this.host.admitSpeech()
      } catch (error) {
        if (this.started.length === 0) throw error
        return
      }
      let released = false
      const release = (): void => {
        if (!released) admission.release()
        released = true
      }
      const text = this.pieces.shift() as string
      const flushed = this.flushedPieces > 0
      if (flushed) this.flushedPieces--
      const controller = new AbortController()
      const request: SpeechRequest = {
        request: { ...this.request, text },
        format: this.host.output.format,
        encoding: this.host.output.encoding,
        stream: true,
        log: this.host.log,
        signal: AbortSignal.any([this.controller.signal, controller.signal]),
        ...(this.wordTiming ? { timestamps: ['word'] } : {}),
        admission,
        playback: this.queue
      }
      const speech = this.host.speech.open(request)
      const piece: Piece = { text, flushed, controller, speech, release, produced: false, timed: this.wordTiming }
      // The next piece may start once this one's audio is all made; a
      // failure surfaces when the piece is sent, not here.
      speech.then(async opened => {
        await opened.produced
        // The voice gives no timing: later pieces do not ask (the phrase cache then serves them).
        if (piece.timed && opened.progress.chunksMade > 0 && opened.progress.timingChunksMade === 0) this.wordTiming = false
      }, () => {}).finally(() => {
        piece.produced = true
        if (this.running) this.askAhead()
      }).catch(() => {})
      this.started.push(piece)
      this.settle()
    }
  }

  /** One piece's chunks as protocol messages; a piece dropped by close_context sends nothing. */
  private async send (piece: Piece): Promise<void> {
    let speech: Speech
    try {
      speech = await piece.speech
    } catch (error) {
      if (piece.controller.signal.aborted) return
      throw error
    }
    const { text } = piece
    const offset = this.heardLog.addText(text)
    let covered = 0
    // Words not yet sent: a piece's timing may come before the previous
    // piece's last audio was encoded; both then ride on the next message.
    let pending: PieceWords | undefined
    // Where this piece's audio ends, from its timing: the next piece's times start there.
    let pieceSamples = 0
    let rate = 1
    try {
      for await (const chunk of speech.chunks) {
        if (this.closed || piece.controller.signal.aborted) break
        if (chunk.kind === 'timing') {
          pieceSamples = Math.max(pieceSamples, chunk.endSample)
          rate = chunk.sampleRate
          // A piece with no word in it: no alignment, rather than one of zeros.
          if (chunk.words.length === 0) continue
          this.heardLog.addWords(offset, chunk.words, chunk.sampleRate, this.timelineSamples)
          const end = coveredEnd(text, chunk.words)
          pending ??= { text, words: [], sampleRate: chunk.sampleRate, from: covered, to: end, originSample: this.timelineSamples }
          pending.words.push(...chunk.words)
          pending.to = end
          covered = end
          continue
        }
        if (chunk.bytes.length === 0) continue
        const words = pending
        pending = undefined
        this.heardLog.sent(chunk.bytes.length, (this.timelineSamples + pieceSamples) * 1000 / rate)
        await this.host.wire.audio(chunk.bytes, words)
      }
    } catch (error) {
      if (piece.controller.signal.aborted) return
      throw error
    }
    this.timelineSamples += pieceSamples
  }
}
