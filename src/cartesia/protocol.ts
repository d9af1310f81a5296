// Cartesia's TTS WebSocket (/tts/websocket), as its client (@cartesia/cartesia-js)
// speaks it: contexts by context_id, each a stream context over the speech
// service; chunk (base64 data), timestamps (words, in seconds from the
// context's first audio), flush_done, done and error messages. A cancel
// stops the context now and is answered with what the listener heard
// (docs/protocols.md). Admission, limits, scheduling and timing are the
// service's; this only translates.

import type { WebSocket } from 'ws'
import { isChorusError } from '../errors.js'
import { invalid } from '../validate.js'
import { SocketAccount } from '../websocket/limits.js'
import { contextRequest } from '../websocket/messages.js'
import { StreamContext, type ContextWire, type PieceWords } from '../websocket/stream-context.js'
import { DEFAULT_SCHEDULE } from '../websocket/text-cutter.js'
import { resolveSocketVoice, type SocketHost, type SocketProtocol } from '../websocket/upgrade.js'
import type { TtsRequest } from '../synthesis/tts-request.js'
import { CARTESIA_ROUTE, contextOf, parseCartesiaMessage, type CartesiaMessage } from './messages.js'

type Generate = Extract<CartesiaMessage, { kind: 'generate' }>

/** Words of an audio event in Cartesia's shape: seconds from the context's first audio. */
function wordTimestamps (piece: PieceWords): { words: string[], start: number[], end: number[] } {
  const seconds = (sample: number): number => (piece.originSample + sample) / piece.sampleRate
  const words = piece.words.filter(w => w.textStart >= piece.from && w.textEnd <= piece.to)
  return { words: words.map(w => w.word), start: words.map(w => seconds(w.startSample)), end: words.map(w => seconds(w.endSample)) }
}

class CartesiaSession {
  private readonly contexts = new Map<string, StreamContext>()
  private readonly account: SocketAccount
  private ended = false

  constructor (private readonly ws: WebSocket, private readonly host: SocketHost) {
    this.account = new SocketAccount(host.limits, host.settings.maxText, host.settings.maxContexts)
    ws.on('message', (data, isBinary) => this.onMessage(isBinary ? '' : String(data)))
    ws.on('close', () => this.shutdown())
    ws.on('error', error => host.log.debug({ err: error }, 'websocket error'))
  }

  shutdown (): void {
    if (!this.ended) this.ws.close(1001, 'The server is shutting down')
    this.ended = true
    for (const context of [...this.contexts.values()]) context.abort()
  }

  private async send (message: Record<string, unknown>): Promise<void> {
    await new Promise<void>((resolve, reject) => this.ws.send(JSON.stringify(message), error => error == null ? resolve() : reject(error)))
  }

  private onMessage (data: string): void {
    if (this.ended) return
    try {
      const message = parseCartesiaMessage(data)
      if (message.kind === 'cancel') return this.cancel(message.contextId, message.audioPlayedMs)
      this.generate(message)
    } catch (error) {
      const contextId = contextOf(data)
      const typed = isChorusError(error) ? error : undefined
      if (typed === undefined) this.host.log.error({ err: error }, 'websocket message failed')
      this.send({ type: 'error', context_id: contextId, status_code: typed?.status ?? 500, done: true, error: typed?.expose === true ? typed.message : 'Internal error' }).catch(() => {})
    }
  }

  private generate (message: Generate): void {
    const context = this.contexts.get(message.contextId) ?? this.open(message)
    if (message.transcript.length > 0) {
      this.account.takeText(message.transcript.length)
      context.add(message.transcript, false)
    }
    if (message.flush) context.flush()
    if (!message.more) context.end()
  }

  /** The context stops now; the answer says what the listener heard. */
  private cancel (id: string, audioPlayedMs: number | undefined): void {
    const context = this.contexts.get(id)
    if (context === undefined) return
    const heard = context.heard(audioPlayedMs)
    context.abort()
    this.send({ type: 'cancelled', context_id: id, status_code: 200, done: true, ...heard }).catch(() => {})
  }

  /** A context's first message names its voice and output format. */
  private open (message: Generate): StreamContext {
    const { voiceId, output } = message
    if (voiceId === undefined) throw invalid('{"mode": "id", "id": <voice>} on a context\'s first message', 'voice', undefined)
    if (output === undefined) throw invalid('{"container": "raw", "encoding", "sample_rate"} on a context\'s first message', 'output_format', undefined)
    const voice = resolveSocketVoice(this.host.speech, this.host.voiceMap, voiceId)
    const request = contextRequest(voice.voice, voice.speaker)
    this.host.speech.prepare({ ...request, text: '.' } satisfies TtsRequest, this.host.admitted.tenant.name)
    this.account.openContext()
    const id = message.contextId
    const base = { context_id: id, status_code: 206, done: false }
    const wire: ContextWire = {
      audio: async (bytes, words) => {
        if (message.timestamps && words !== undefined) await this.send({ ...base, type: 'timestamps', word_timestamps: wordTimestamps(words) })
        await this.send({ ...base, type: 'chunk', data: Buffer.from(bytes).toString('base64'), step_time: 0 })
      },
      flushed: async n => await this.send({ ...base, type: 'flush_done', flush_done: true, flush_id: n }),
      final: async () => await this.send({ type: 'done', context_id: id, status_code: 200, done: true }),
      failed: async (error, code, status) => await this.send({ type: 'error', context_id: id, status_code: status, done: true, error, code })
    }
    const context: StreamContext = new StreamContext(id, request, { schedule: DEFAULT_SCHEDULE, autoMode: false }, {
      speech: this.host.speech,
      log: this.host.log,
      output,
      wire,
      playbackClock: this.host.playbackClock,
      textWaitMs: this.host.settings.textWaitMs,
      released: characters => this.account.releaseText(characters),
      finished: done => {
        if (this.contexts.get(id) !== done) return
        this.contexts.delete(id)
        this.account.closeContext()
      },
      admitSpeech: () => this.host.admitted.speech()
    })
    this.contexts.set(id, context)
    return context
  }
}

export const cartesiaProtocol: SocketProtocol = {
  routes: [CARTESIA_ROUTE],
  accept: url => url.pathname === CARTESIA_ROUTE ? (ws, host) => new CartesiaSession(ws, host) : undefined
}
