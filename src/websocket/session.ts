// One WebSocket: its messages dispatched to contexts (one on stream-input,
// many on multi-stream-input), its limits, its inactivity clock and its
// writes. Every write waits for the previous one to reach the socket (ws's
// send callback), so a reader who stops reading stops its own contexts:
// each holds at most one message here, their speeches' buffers fill
// (TTS_RESPONSE_BUFFER_BYTES) and synthesis waits, until the speech's own
// time (TTS_TIMEOUT_SECONDS) ends it.

import type { WebSocket } from 'ws'
import { isChorusError, type ChorusError } from '../errors.js'
import { INTERNAL_ERROR_MESSAGE } from '../shared/json-errors.js'
import type { Logger } from '../shared/logger.js'
import type { Admission } from '../access/access.js'
import type { SpeechService } from '../synthesis/speech-service.js'
import type { TtsRequest } from '../synthesis/tts-request.js'
import { inactive, tooManyContexts, tooMuchText } from './errors.js'
import type { SocketLimits } from './limits.js'
import { contextRequest, parseClientMessage, type ClientMessage, type SocketOptions } from './messages.js'
import { StreamContext } from './stream-context.js'
import { elevenLabsWire } from './eleven-wire.js'
import type { Heard, PlaybackClock } from '../synthesis/heard.js'
import { DEFAULT_SCHEDULE } from './text-cutter.js'

export interface WebSocketSettings {
  /** TTS_WS_MAX_CONTEXTS: open contexts per socket. */
  maxContexts: number
  /** TTS_WS_MAX_TEXT: characters waiting to be spoken per socket. */
  maxText: number
  /** TTS_WS_TEXT_WAIT_MS: a context's text is cut after this long without more. */
  textWaitMs: number
}

/** The context of stream-input, which has no id. */
const SINGLE = ''
/** A multi-stream-input message without context_id goes to this one. */
const DEFAULT_CONTEXT = 'default'
/** WebSocket close codes (RFC 6455). */
const NORMAL = 1000
const GOING_AWAY = 1001
const POLICY = 1008

export class SocketSession {
  /** Open contexts by id: text for an id goes to its context. */
  private readonly contexts = new Map<string, StreamContext>()
  /** Contexts the client closed that still speak what they flushed: their id
   * may open a new context meanwhile, and they still count against the limits. */
  private readonly closing = new Set<StreamContext>()
  private held = 0
  private inactivityTimer: NodeJS.Timeout | undefined
  /** The socket is closing or closed: messages are ignored. */
  private ended = false

  constructor (
    private readonly ws: WebSocket,
    private readonly options: SocketOptions,
    private readonly voice: { voice: string, speaker?: number | string },
    private readonly speech: SpeechService,
    private readonly settings: WebSocketSettings,
    private readonly limits: SocketLimits,
    private readonly log: Logger,
    /** The socket's admission: each piece's speech is admitted through it. */
    private readonly admitted: Admission,
    private readonly playbackClock: PlaybackClock
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(isBinary ? '' : String(data)))
    ws.on('close', () => this.stop())
    ws.on('error', error => log.debug({ err: error }, 'websocket error'))
    this.touch()
  }

  /** Contexts open or still speaking what was flushed before their close, for tests and metrics. */
  get contextCount (): number {
    return this.contexts.size + this.closing.size
  }

  /** Contexts closed by the client that still speak what was flushed. */
  get closingCount (): number {
    return this.closing.size
  }

  /** Characters held by this socket's contexts, not yet handed to synthesis. */
  get heldText (): number {
    return this.held
  }

  /** Messages handed to the socket and not yet written out (at most one per context). */
  get unwritten (): number {
    return this.writing
  }

  /** Bytes ws holds for this socket beyond what the kernel took. */
  get bufferedAmount (): number {
    return this.ws.bufferedAmount
  }

  private writing = 0

  /** The code the socket closes with once its last context has finished. */
  private endCode = NORMAL

  /** The service is draining: each context speaks what it had flushed (then
   * its isFinal), as on close_context, and the socket then closes with 1001;
   * messages from now on are ignored. */
  drain (): void {
    if (this.ended) return
    this.endCode = GOING_AWAY
    this.closeGracefully()
  }

  /** Ends the socket (the service is shutting down): contexts stop now. */
  shutdown (): void {
    this.ws.close(GOING_AWAY, 'The server is shutting down')
    this.stop()
  }

  private touch (): void {
    clearTimeout(this.inactivityTimer)
    if (this.ended) return
    this.inactivityTimer = setTimeout(() => {
      // The client is quiet because it waits for audio the server still
      // owes (a busy server's first audio may take longer than the timeout):
      // not inactivity; accepted text is never dropped for it. A reader who
      // stopped reading leaves bytes queued on the socket, and is closed.
      if (this.owesAudio() && this.writing === 0 && this.ws.bufferedAmount === 0) {
        // Logged for the tests, which wait for it rather than for the clock.
        this.log.debug('inactivity_timeout passed while audio is owed: kept open')
        this.touch()
      } else {
        this.fail(inactive(this.options.inactivitySeconds))
      }
    }, this.options.inactivitySeconds * 1000)
  }

  private owesAudio (): boolean {
    return this.allContexts().some(context => context.working)
  }

  /** Open contexts and those closing (speaking what was flushed). */
  private allContexts (): StreamContext[] {
    return [...this.contexts.values(), ...this.closing]
  }

  private async send (message: Record<string, unknown>): Promise<void> {
    this.touch()
    this.writing++
    try {
      await new Promise<void>((resolve, reject) => {
        this.ws.send(JSON.stringify(message), error => error === undefined || error === null ? resolve() : reject(error))
      })
    } finally {
      this.writing--
    }
  }

  private refuse (error: unknown, contextId?: string): void {
    const typed = isChorusError(error) ? error : undefined
    if (typed === undefined) this.log.error({ err: error }, 'websocket message failed')
    const body = { error: typed?.expose === true ? typed.message : INTERNAL_ERROR_MESSAGE, code: typed?.code ?? 'ERR_INTERNAL', ...(contextId !== undefined ? { contextId } : {}) }
    this.send(body).catch(() => {})
  }

  /** A fatal refusal: tell, then close the socket. */
  private fail (error: ChorusError): void {
    this.refuse(error)
    this.ws.close(POLICY, error.code)
    this.stop()
  }

  private stop (): void {
    this.ended = true
    clearTimeout(this.inactivityTimer)
    for (const context of this.allContexts()) context.abort()
  }

  private onMessage (data: string): void {
    if (this.ended || this.endingAll) return
    this.touch()
    let message: ClientMessage
    try {
      message = parseClientMessage(data)
    } catch (error) {
      this.fail(error as ChorusError)
      return
    }
    try {
      if (this.options.multi) this.multi(message)
      else this.single(message)
    } catch (error) {
      // stream-input whose one context could not open (bad voice_settings) has nothing left to do.
      if (!this.options.multi && !this.contexts.has(SINGLE) && isChorusError(error)) return this.fail(error)
      this.refuse(error, this.options.multi ? message.contextId ?? DEFAULT_CONTEXT : undefined)
    }
  }

  private single (message: ClientMessage): void {
    const context = this.contexts.get(SINGLE) ?? this.open(SINGLE, message)
    // {"text": ""} ends the stream: the rest is spoken, isFinal sent, the socket closed.
    if (message.text === '') return context.end()
    this.addText(context, message)
  }

  private multi (message: ClientMessage): void {
    if (message.closeSocket) return this.closeGracefully()
    const id = message.contextId ?? DEFAULT_CONTEXT
    const existing = this.contexts.get(id)
    if (message.closeContext) {
      if (existing !== undefined) this.closeContext(id, existing, message.reportHeard, message.audioPlayedMs)
      return
    }
    const context = existing ?? this.open(id, message)
    // {"text": ""} keeps a context alive; with flush it speaks what is held.
    this.addText(context, message)
  }

  private addText (context: StreamContext, message: ClientMessage): void {
    const text = message.text ?? ''
    if (text.length > 0) {
      if (this.held + text.length > this.settings.maxText) throw tooMuchText(this.settings.maxText, 'socket', this.held + text.length)
      if (this.limits.text + text.length > this.limits.maxText) throw tooMuchText(this.limits.maxText, 'process', this.limits.text + text.length)
      this.held += text.length
      this.limits.text += text.length
      context.add(text, message.tryTrigger)
    }
    if (message.flush) context.flush()
  }

  /** What the listener heard of each context a client interrupted, sent after its isFinal. */
  private readonly interrupted = new Map<StreamContext, Heard>()

  /** Its flushed text is still spoken (then isFinal); its id is free for a new context at once.
   * Asked to (report_heard), what the listener heard by now follows the isFinal. */
  private closeContext (id: string, context: StreamContext, reportHeard = false, audioPlayedMs?: number): void {
    this.contexts.delete(id)
    this.closing.add(context)
    if (reportHeard) this.interrupted.set(context, context.heard(audioPlayedMs))
    context.close()
  }

  private open (id: string, message: ClientMessage): StreamContext {
    if (this.contextCount >= this.settings.maxContexts) throw tooManyContexts(this.settings.maxContexts, 'socket')
    if (this.limits.contexts >= this.limits.maxContexts) throw tooManyContexts(this.limits.maxContexts, 'process')
    const request = contextRequest(this.voice.voice, this.voice.speaker, message.voiceSettings, { ssml: this.options.ssml, ...(message.lexicons !== undefined ? { lexicons: message.lexicons } : {}) })
    // Bad settings (a length_scale out of range, an unknown speaker, a lexicon
    // not installed) are refused now, not at the first sentence.
    this.speech.prepare({ ...request, text: '.', ssml: false } satisfies TtsRequest, this.admitted.tenant.name)
    const contextId = id === SINGLE ? undefined : id
    const wire = elevenLabsWire(async body => await this.send(body), contextId, this.options.syncAlignment)
    const context: StreamContext = new StreamContext(contextId, request, { schedule: message.schedule ?? DEFAULT_SCHEDULE, autoMode: this.options.autoMode, ssml: this.options.ssml }, {
      speech: this.speech,
      log: this.log,
      output: this.options.output,
      textWaitMs: this.settings.textWaitMs,
      playbackClock: this.playbackClock,
      wire: {
        ...wire,
        final: async () => {
          const sending = wire.final()
          const heard = this.interrupted.get(context)
          this.interrupted.delete(context)
          // After isFinal, for a client that knows no more than ElevenLabs' messages.
          if (heard !== undefined) await Promise.all([sending, this.send({ contextId: id, heard })])
          else await sending
        }
      },
      released: characters => {
        this.held -= characters
        this.limits.text -= characters
      },
      finished: done => this.finished(id, done),
      admitSpeech: () => this.admitted.speech()
    })
    this.contexts.set(id, context)
    this.limits.contexts++
    return context
  }

  private finished (id: string, context: StreamContext): void {
    this.interrupted.delete(context)
    if (this.contexts.get(id) === context) this.contexts.delete(id)
    else if (!this.closing.delete(context)) return
    this.limits.contexts--
    // stream-input ends with its one context; multi-stream-input on close_socket with its last.
    if (!this.ended && (!this.options.multi || this.endingAll) && this.contextCount === 0) {
      this.ended = true
      clearTimeout(this.inactivityTimer)
      this.ws.close(this.endCode)
    }
  }

  private endingAll = false

  /** close_socket: every context is closed as by close_context (what it
   * flushed is spoken, then its isFinal), then the socket closes. */
  private closeGracefully (): void {
    this.endingAll = true
    if (this.contextCount === 0) {
      this.ended = true
      this.ws.close(this.endCode)
      return
    }
    for (const [id, context] of [...this.contexts]) this.closeContext(id, context)
  }
}
