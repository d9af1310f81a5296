// The input-streaming WebSocket on the service's port: an HTTP upgrade to
// /v1/text-to-speech/{voice_id}/stream-input or /multi-stream-input is
// checked (path, then admission: host, page, key and requests per minute, as
// every HTTP request is; then query and voice) before it is accepted; a
// refusal is an HTTP answer with the usual JSON error body, so a client sees why.
// Other protocols' sockets (Cartesia's, Deepgram's) come in as SocketProtocols:
// the same door, the same admission, their own sessions.

import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { ChorusError, isChorusError } from '../errors.js'
import { INTERNAL_ERROR_MESSAGE } from '../shared/json-errors.js'
import type { VoiceTarget } from '../openai/voice-map.js'
import { mappedVoice } from '../openai/voice-resolver.js'
import type { Admission, ApiAccess } from '../access/access.js'
import type { Logger } from '../shared/logger.js'
import { voiceNotFound } from '../synthesis/errors.js'
import type { SpeechService, VoiceQueries } from '../synthesis/speech-service.js'
import type { PlaybackClock } from '../synthesis/heard.js'
import { notFound } from './errors.js'
import { SocketLimits } from './limits.js'
import { matchSocketPath, parseSocketQuery, SOCKET_ROUTES } from './messages.js'
import { SocketSession, type WebSocketSettings } from './session.js'

export interface WebSocketConfig extends WebSocketSettings {
  /** TTS_WS_MAX_CONTEXTS_TOTAL and TTS_WS_MAX_TEXT_TOTAL: every socket together. */
  maxContextsTotal: number
  maxTextTotal: number
  /** TTS_WS_MAX_MESSAGE_BYTES: one client message at most (ws's maxPayload). */
  maxMessageBytes: number
  /** The OpenAI endpoint's voice map: ids a client hard-codes onto voices. */
  openaiVoices: Readonly<Record<string, VoiceTarget>>
  /** Headers on the 101 and on every refusal, as on every HTTP answer (the replica's name). */
  headers?: Readonly<Record<string, string>>
}

/** What every socket's session is given besides its socket. */
export interface SocketHost {
  speech: SpeechService
  /** The socket's admission: each speech is admitted through it. */
  admitted: Admission
  /** Process-wide counts of contexts and text, shared by every protocol. */
  limits: SocketLimits
  settings: WebSocketSettings
  voiceMap: Readonly<Record<string, VoiceTarget>>
  log: Logger
  playbackClock: PlaybackClock
}

/** Another protocol on the service's port: its paths, and its sessions. */
export interface SocketProtocol {
  readonly routes: readonly string[]
  /** For a path of its own, checks the query (and voice) before the upgrade
   * is accepted (throwing a ChorusError refuses it) and returns what opens
   * the session; undefined for any other path. */
  accept: (url: URL, host: Omit<SocketHost, 'admitted' | 'log'>) => ((ws: WebSocket, host: SocketHost) => { shutdown: () => void }) | undefined
}

export interface WebSockets {
  /** The paths an upgrade may ask for (route patterns). */
  readonly routes: readonly string[]
  /** Open sockets, for tests and metrics. */
  readonly sessions: ReadonlySet<SocketSession>
  readonly limits: SocketLimits
  /** Each socket speaks what its contexts flushed, then closes (sockets
   * opened from now on close at once); settles when none is left. */
  drain: () => Promise<void>
  /** Ends every socket (the service is shutting down). */
  close: () => void
}

/** A voice_id: an alias of the voice map (the default voice if its voice is
 * missing, as the OpenAI endpoint does), else an installed voice's name. */
export function resolveSocketVoice (voices: VoiceQueries, voiceMap: Readonly<Record<string, VoiceTarget>>, voiceId: string): VoiceTarget {
  const mapped = voiceMap[voiceId.toLowerCase()]
  if (mapped !== undefined) {
    const { voice, speaker } = mappedVoice(voices, mapped)
    return { voice, ...(speaker !== undefined ? { speaker } : {}) }
  }
  const installed = voices.voiceNames()
  if (installed.includes(voiceId)) return { voice: voiceId }
  throw voiceNotFound(voiceId, [...Object.keys(voiceMap).sort(), ...installed])
}

function reject (socket: Duplex, error: ChorusError, headers: Readonly<Record<string, string>>): void {
  const body = JSON.stringify({ error: error.message, code: error.code, ...error.details })
  // WWW-Authenticate on a 401, Retry-After on a 429.
  const extra = Object.entries({ ...headers, ...error.headers }).map(([name, value]) => `${name}: ${value}\r\n`).join('')
  socket.end(`HTTP/1.1 ${error.status} ${error.code}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`)
}

/** Another protocol's session opener for this path, or undefined. */
function acceptOther (protocols: readonly SocketProtocol[], url: URL, shared: Parameters<SocketProtocol['accept']>[1]): ReturnType<SocketProtocol['accept']> {
  for (const protocol of protocols) {
    const accept = protocol.accept(url, shared)
    if (accept !== undefined) return accept
  }
  return undefined
}

/** The open sessions: ElevenLabs' drain context by context; Cartesia's and
 * Deepgram's have no drain of their own yet and are closed when the drain
 * ends (docs/deployment.md). */
class OpenSessions {
  readonly eleven = new Set<SocketSession>()
  private readonly others = new Set<{ shutdown: () => void }>()
  private draining = false
  private drained: (() => void) | undefined

  addEleven (session: SocketSession, ws: WebSocket): void {
    this.eleven.add(session)
    ws.on('close', () => {
      this.eleven.delete(session)
      if (this.eleven.size === 0) this.drained?.()
    })
    if (this.draining) session.drain()
  }

  addOther (session: { shutdown: () => void }, ws: WebSocket): void {
    this.others.add(session)
    ws.on('close', () => this.others.delete(session))
  }

  async drain (): Promise<void> {
    this.draining = true
    const settled = new Promise<void>(resolve => { this.drained = resolve })
    for (const session of this.eleven) session.drain()
    if (this.eleven.size > 0) await settled
  }

  close (): void {
    for (const session of this.eleven) session.drain()
    for (const session of this.others) session.shutdown()
  }
}

export function attachWebSockets (server: Server, speech: SpeechService, access: ApiAccess, config: WebSocketConfig, log: Logger,
  playbackClock: PlaybackClock, protocols: readonly SocketProtocol[] = []): WebSockets {
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.maxMessageBytes })
  const open = new OpenSessions()
  const limits = new SocketLimits(config.maxContextsTotal, config.maxTextTotal)
  const shared = { speech, limits, settings: config, voiceMap: config.openaiVoices, playbackClock }
  let nextId = 1
  const headers = config.headers ?? {}
  wss.on('headers', lines => { for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`) })
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => {})
    try {
      const url = new URL(request.url ?? '/', 'http://localhost')
      const endpoint = matchSocketPath(url.pathname)
      const known = endpoint !== undefined || protocols.some(protocol => protocol.routes.some(route => route === url.pathname))
      if (!known) throw notFound(url.pathname)
      // Admission before anything else, as for every HTTP request: a
      // stranger or a foreign page learns nothing more (421, 403, 401, 429).
      const admitted = access.admit({ method: request.method ?? 'GET', headers: request.headers, url: request.url ?? '/', upgrade: true, connection: socket, open: false })
      if (endpoint === undefined) {
        const accept = acceptOther(protocols, url, shared)
        if (accept === undefined) throw notFound(url.pathname)
        wss.handleUpgrade(request, socket, head, ws => {
          open.addOther(accept(ws, { ...shared, admitted, log: log.child({ socket: nextId++, path: url.pathname, key: admitted.tenant.name }) }), ws)
        })
        return
      }
      const options = parseSocketQuery(endpoint.voiceId, endpoint.multi, url.searchParams)
      const voice = resolveSocketVoice(speech, config.openaiVoices, endpoint.voiceId)
      wss.handleUpgrade(request, socket, head, ws => {
        const session = new SocketSession(ws, options, voice, speech, config, limits,
          log.child({ socket: nextId++, voice: voice.voice, multi: options.multi, key: admitted.tenant.name }), admitted, playbackClock)
        open.addEleven(session, ws)
      })
    } catch (error) {
      if (!isChorusError(error)) log.error({ err: error }, 'websocket upgrade failed')
      reject(socket, isChorusError(error) ? error : new ChorusError('ERR_INTERNAL', INTERNAL_ERROR_MESSAGE, { status: 500 }), headers)
    }
  })
  return {
    routes: [...SOCKET_ROUTES, ...protocols.flatMap(protocol => protocol.routes)],
    sessions: open.eleven,
    limits,
    drain: async () => await open.drain(),
    close: () => {
      open.close()
      wss.close()
    }
  }
}
