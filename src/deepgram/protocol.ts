// Deepgram's Aura speak WebSocket (/v1/speak), as its SDK's speak client
// speaks it: Speak adds text to the socket's one stream context, Flush cuts
// it (answered by Flushed once its audio is sent), Clear stops it now and is
// answered by Cleared with what the listener heard (audio_played_ms,
// text_spoken, text_remaining: the fields of Deepgram's newer
// SpeechInterrupted), Close speaks what was flushed, then closes. Audio goes
// as binary messages; Metadata first; refusals as Warning. Admission,
// limits, scheduling and timing are the service's; this only translates.

import { randomUUID } from 'node:crypto'
import type { WebSocket } from 'ws'
import { isChorusError } from '../errors.js'
import type { TtsRequest } from '../synthesis/tts-request.js'
import { SocketAccount } from '../websocket/limits.js'
import { contextRequest } from '../websocket/messages.js'
import { StreamContext } from '../websocket/stream-context.js'
import { DEFAULT_SCHEDULE } from '../websocket/text-cutter.js'
import { resolveSocketVoice, type SocketHost, type SocketProtocol } from '../websocket/upgrade.js'
import { DEEPGRAM_ROUTE, parseDeepgramMessage, parseDeepgramQuery, type DeepgramQuery } from './messages.js'

class DeepgramSession {
  private context: StreamContext | undefined
  private readonly account: SocketAccount
  private readonly request: Omit<TtsRequest, 'text'>
  /** Flushes so far: each Flushed and Cleared carries the last one's number. */
  private flushes = 0
  private closing = false
  private ended = false

  constructor (private readonly ws: WebSocket, private readonly host: SocketHost, private readonly query: DeepgramQuery) {
    this.account = new SocketAccount(host.limits, host.settings.maxText, 1)
    // A model that names an installed voice (or an alias) speaks with it; Aura's names speak with the default voice.
    const names = [...Object.keys(host.voiceMap), ...host.speech.voiceNames()]
    const voice = query.model !== undefined && names.includes(query.model) ? resolveSocketVoice(host.speech, host.voiceMap, query.model) : undefined
    this.request = contextRequest(voice?.voice as string, voice?.speaker)
    if (voice === undefined) delete this.request.voice
    ws.on('message', (data, isBinary) => this.onMessage(isBinary ? '' : String(data)))
    ws.on('close', () => this.shutdown())
    ws.on('error', error => host.log.debug({ err: error }, 'websocket error'))
    this.send({ type: 'Metadata', request_id: randomUUID(), model_name: query.model ?? voice?.voice ?? 'chorus', model_version: 'chorus', model_uuid: randomUUID() }).catch(() => {})
  }

  shutdown (): void {
    if (!this.ended) this.ws.close(1001, 'The server is shutting down')
    this.ended = true
    this.context?.abort()
  }

  private async send (message: Record<string, unknown> | Uint8Array): Promise<void> {
    const data = message instanceof Uint8Array ? message : JSON.stringify(message)
    await new Promise<void>((resolve, reject) => this.ws.send(data, error => error == null ? resolve() : reject(error)))
  }

  private warn (error: unknown): void {
    const typed = isChorusError(error) ? error : undefined
    if (typed === undefined) this.host.log.error({ err: error }, 'websocket message failed')
    this.send({ type: 'Warning', description: typed?.expose === true ? typed.message : 'Internal error', code: typed?.code ?? 'ERR_INTERNAL' }).catch(() => {})
  }

  private onMessage (data: string): void {
    if (this.ended || this.closing) return
    try {
      const message = parseDeepgramMessage(data)
      if (message.type === 'Speak') {
        if (message.text.length === 0) return
        this.account.takeText(message.text.length)
        this.open().add(message.text, false)
      } else if (message.type === 'Flush') {
        this.flushes++
        this.open().flush()
      } else if (message.type === 'Clear') {
        const heard = this.context?.heard(message.playedMs)
        this.context?.abort()
        this.send({ type: 'Cleared', sequence_id: this.flushes, ...heard }).catch(() => {})
      } else {
        this.closing = true
        if (this.context === undefined) this.ws.close(1000)
        else this.context.close()
      }
    } catch (error) {
      this.warn(error)
    }
  }

  private open (): StreamContext {
    if (this.context !== undefined) return this.context
    this.host.speech.prepare({ ...this.request, text: '.' }, this.host.admitted.tenant.name)
    this.account.openContext()
    const context: StreamContext = new StreamContext(undefined, this.request, { schedule: DEFAULT_SCHEDULE, autoMode: false }, {
      speech: this.host.speech,
      log: this.host.log,
      output: this.query.output,
      playbackClock: this.host.playbackClock,
      textWaitMs: this.host.settings.textWaitMs,
      wire: {
        audio: async bytes => await this.send(bytes),
        flushed: async () => await this.send({ type: 'Flushed', sequence_id: this.flushes }),
        final: async () => {},
        failed: async (description, code) => await this.send({ type: 'Warning', description, code })
      },
      released: characters => this.account.releaseText(characters),
      finished: () => {
        if (this.context !== context) return
        this.context = undefined
        this.account.closeContext()
        if (this.closing) this.ws.close(1000)
      },
      admitSpeech: () => this.host.admitted.speech()
    })
    this.context = context
    return context
  }
}

export const deepgramProtocol: SocketProtocol = {
  routes: [DEEPGRAM_ROUTE],
  accept: url => {
    if (url.pathname !== DEEPGRAM_ROUTE) return undefined
    const query = parseDeepgramQuery(url.searchParams)
    return (ws, host) => new DeepgramSession(ws, host, query)
  }
}
