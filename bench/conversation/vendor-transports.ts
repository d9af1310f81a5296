// The conversation benchmark's transports over the other vendors' sockets
// (docs/protocols.md), chosen with --transport cartesia or deepgram (not in
// the default set): each token of a reply sent as it arrives, audio asked
// for as 16-bit PCM at the voice's own rate, one socket per reply.
// - cartesia: /tts/websocket, one context, each token with continue: true,
//   then an empty transcript with continue: false; the reply ends at done.
// - deepgram: /v1/speak, each token a Speak, then Flush; the reply ends at
//   Flushed (then Close).
// Which sentence a piece of audio speaks is estimated from its share of the
// reply's audio (attributeAudio), as for a stream-input without alignment.

import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import { ChorusError } from '../../src/errors.js'
import type { AudioPiece } from './player.js'
import type { Speaker, SpeechTransport } from './transport.js'
import { attributeAudio } from './websocket-transport.js'

interface Protocol {
  name: 'cartesia' | 'deepgram'
  url: (origin: URL, speaker: Speaker, rate: number) => URL
  headers: (speaker: Speaker) => Record<string, string>
  token: (text: string, speaker: Speaker, rate: number) => unknown[]
  end: () => unknown[]
  /** An incoming message: its audio, the end of the reply, or a refusal. */
  read: (data: Buffer, isBinary: boolean) => { audio?: number, done?: boolean, error?: string }
}

const CARTESIA: Protocol = {
  name: 'cartesia',
  url: (origin, speaker) => new URL(`/tts/websocket${speaker.apiKey === undefined ? '' : `?api_key=${encodeURIComponent(speaker.apiKey)}`}`, origin),
  headers: () => ({}),
  token: (text, speaker, rate) => [{ context_id: 'reply', model_id: 'chorus', voice: { mode: 'id', id: speaker.voice }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: rate }, transcript: text, continue: true }],
  end: () => [{ context_id: 'reply', transcript: '', continue: false }],
  read: data => {
    const message = JSON.parse(String(data)) as { type?: string, data?: string, error?: string }
    if (message.type === 'error') return { error: String(message.error) }
    return { ...(message.type === 'chunk' ? { audio: Buffer.byteLength(message.data ?? '', 'base64') } : {}), done: message.type === 'done' }
  }
}

const DEEPGRAM: Protocol = {
  name: 'deepgram',
  url: (origin, speaker, rate) => new URL(`/v1/speak?model=${encodeURIComponent(speaker.voice)}&encoding=linear16&sample_rate=${rate}`, origin),
  headers: (speaker): Record<string, string> => speaker.apiKey === undefined ? {} : { Authorization: `Token ${speaker.apiKey}` },
  token: text => [{ type: 'Speak', text }],
  end: () => [{ type: 'Flush' }],
  read: (data, isBinary) => {
    if (isBinary) return { audio: data.length }
    const message = JSON.parse(String(data)) as { type?: string, description?: string }
    if (message.type === 'Warning') return { error: String(message.description) }
    return { done: message.type === 'Flushed' }
  }
}

function vendorTransport (protocol: Protocol, baseUrl: string, sampleRate: number, timeoutMs: number): SpeechTransport {
  const origin = new URL(baseUrl)
  origin.protocol = origin.protocol === 'https:' ? 'wss:' : 'ws:'
  const open = new Set<WebSocket>()
  const speak: SpeechTransport['speak'] = async (reply, startMs, speaker) => await new Promise<AudioPiece[]>((resolve, reject) => {
    const ws = new WebSocket(protocol.url(origin, speaker, sampleRate), { headers: protocol.headers(speaker), perMessageDeflate: false })
    open.add(ws)
    const arrived: Array<Omit<AudioPiece, 'askedMs'>> = []
    const sentMs: number[] = []
    const sending = new AbortController()
    const finish = (error?: Error): void => {
      clearTimeout(timer)
      sending.abort()
      if (!open.delete(ws)) return
      ws.close()
      if (error !== undefined) return reject(error)
      resolve(attributeAudio(arrived, reply.sentences.map((s, i) => ({ characters: [...s.text].length, sentMs: sentMs[i] ?? sentMs.at(-1) ?? startMs }))))
    }
    const timer = setTimeout(() => finish(new ChorusError('ERR_BENCH_WS', `${protocol.name} did not end the reply within ${timeoutMs} ms`)), timeoutMs)
    ws.on('unexpected-response', (req, res) => {
      const body: Buffer[] = []
      res.on('data', (chunk: Buffer) => body.push(chunk))
      res.on('end', () => {
        finish(new ChorusError('ERR_BENCH_WS', `${protocol.name}'s upgrade answered ${res.statusCode ?? 0}: ${Buffer.concat(body).toString().slice(0, 200)}`))
        req.destroy()
      })
    })
    ws.on('error', error => finish(new ChorusError('ERR_BENCH_WS', `${protocol.name} failed: ${error.message}`, { cause: error })))
    ws.on('close', code => finish(new ChorusError('ERR_BENCH_WS', `${protocol.name} closed (${code}) before the reply ended`)))
    ws.on('message', (data: Buffer, isBinary) => {
      const got = protocol.read(data, isBinary)
      if (got.audio !== undefined && got.audio > 0) arrived.push({ arrivedMs: performance.now(), durationMs: got.audio / 2 / sampleRate * 1000 })
      if (got.error !== undefined) finish(new ChorusError('ERR_BENCH_WS', `${protocol.name} answered: ${got.error}`))
      else if (got.done === true) finish()
    })
    ws.on('open', () => {
      (async () => {
        for (const token of reply.tokens) {
          await sleep(Math.max(0, startMs + token.atMs - performance.now()), undefined, { signal: sending.signal })
          for (const message of protocol.token(token.text, speaker, sampleRate)) ws.send(JSON.stringify(message))
          if (token.atMs >= (reply.sentences[sentMs.length]?.endMs ?? Infinity)) sentMs.push(performance.now())
        }
        for (const message of protocol.end()) ws.send(JSON.stringify(message))
      })().catch((error: unknown) => { if (!sending.signal.aborted) finish(error instanceof Error ? error : new Error(String(error))) })
    })
  })
  return {
    name: protocol.name,
    firstTextMs: reply => reply.sentences[0]?.endMs ?? 0,
    speak,
    close: () => {
      for (const ws of open) ws.terminate()
      open.clear()
    }
  }
}

export const cartesiaTransport = (baseUrl: string, sampleRate: number, timeoutMs: number): SpeechTransport => vendorTransport(CARTESIA, baseUrl, sampleRate, timeoutMs)
export const deepgramTransport = (baseUrl: string, sampleRate: number, timeoutMs: number): SpeechTransport => vendorTransport(DEEPGRAM, baseUrl, sampleRate, timeoutMs)
