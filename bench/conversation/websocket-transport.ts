// The WebSocket transport of the conversation benchmarks: ElevenLabs'
// stream-input (docs/websocket.md), each token of a reply sent as it
// arrives; the service cuts the sentences. Audio is asked for as raw PCM at
// the voice's own rate, so no resampling or encoding is added to the
// service's work, and a message's duration is its bytes over the byte rate.
//
// One socket per reply: stream-input tells that a stream's audio is complete
// only by its isFinal, which follows the end message ({"text": ""}) and
// closes the socket; a flush marks no end, so a socket kept across replies
// could not tell one reply's last audio from a pause. The socket is opened
// when the reply starts, as an agent opens it when it asks its model: the
// upgrade counts towards first audio only if it outlasts the first
// sentence's tokens (those that arrive before it is open are sent at once).

import { setTimeout as sleep } from 'node:timers/promises'
import WebSocket from 'ws'
import { ChorusError } from '../../src/errors.js'
import type { AudioPiece } from './player.js'
import type { Reply } from './replies.js'
import type { SpeechTransport } from './transport.js'

/** ElevenLabs' largest chunk_length_schedule entry: the service then cuts
 * at sentence ends, as the HTTP transport does, rather than within a
 * sentence at the default schedule's 120 characters. */
const SCHEDULE = [500]
/** The protocol's longest inactivity_timeout, in seconds: a bot waiting for
 * its audio under load is not idle; the service's request timeout bounds it. */
const INACTIVITY_SECONDS = 180
/** Bytes of one 16-bit PCM sample. */
const SAMPLE_BYTES = 2

/** A sentence of the reply: its length, and when its last token was sent. */
export interface SentSentence {
  characters: number
  sentMs: number
}

/** An audio message as it arrived, and where in the reply's text its
 * alignment starts (null: it carried none, so it speaks on from the one before). */
export type AlignedAudio = Omit<AudioPiece, 'askedMs'> & { textAt: number | null }

/**
 * Which sentence each message's audio speaks, from the alignments the
 * service sent: they spell the reply's text, its sentences joined by a
 * space, so the character a message's alignment starts at (past a leading
 * space) falls in one sentence; a message without one continues the
 * sentence before it. Its askedMs is when that sentence's last token was
 * sent. Undefined when no message carried an alignment. Pure.
 */
export function attributeAligned (arrived: readonly AlignedAudio[], sentences: readonly SentSentence[]): AudioPiece[] | undefined {
  if (!arrived.some(piece => piece.textAt !== null)) return undefined
  const starts: number[] = []
  let at = 0
  for (const sentence of sentences) {
    starts.push(at)
    at += sentence.characters + 1
  }
  let sentence = 0
  return arrived.map(({ textAt, ...piece }) => {
    while (textAt !== null && sentence < sentences.length - 1 && starts[sentence + 1] <= textAt) sentence++
    return { ...piece, askedMs: sentences[sentence]?.sentMs ?? piece.arrivedMs }
  })
}

/**
 * Which sentence each message's audio speaks, estimated when no alignment
 * tells (a service that sends none): the service cuts at sentence ends and
 * a sentence's audio is about in proportion to its characters, so audio
 * that starts at x % of the reply's is of the sentence that holds x % of its
 * characters. Its askedMs is when that sentence's last token was sent. Pure.
 */
export function attributeAudio (arrived: ReadonlyArray<Omit<AudioPiece, 'askedMs'>>, sentences: readonly SentSentence[]): AudioPiece[] {
  const totalAudio = arrived.reduce((sum, piece) => sum + piece.durationMs, 0)
  const totalCharacters = sentences.reduce((sum, s) => sum + s.characters, 0)
  let audio = 0
  return arrived.map(piece => {
    const share = totalAudio === 0 ? 0 : audio / totalAudio
    audio += piece.durationMs
    let sentence = 0
    let characters = sentences[0]?.characters ?? 0
    while (sentence < sentences.length - 1 && characters <= share * totalCharacters) characters += sentences[++sentence].characters
    return { ...piece, askedMs: sentences[sentence]?.sentMs ?? piece.arrivedMs }
  })
}

export function streamInputTransport (baseUrl: string, sampleRate: number, timeoutMs: number): SpeechTransport {
  const origin = new URL(baseUrl)
  origin.protocol = origin.protocol === 'https:' ? 'wss:' : 'ws:'
  const open = new Set<WebSocket>()

  const speak: SpeechTransport['speak'] = async (reply, startMs, speaker) => await new Promise((resolve, reject) => {
    const path = `/v1/text-to-speech/${encodeURIComponent(speaker.voice)}/stream-input?output_format=pcm_${sampleRate}&inactivity_timeout=${INACTIVITY_SECONDS}`
    const ws = new WebSocket(new URL(path, origin), { headers: speaker.apiKey === undefined ? {} : { 'xi-api-key': speaker.apiKey }, perMessageDeflate: false })
    open.add(ws)
    const arrived: AlignedAudio[] = []
    // Characters the alignments spelled so far: where the next one starts in the reply's text.
    let aligned = 0
    const sentMs: number[] = []
    const sending = new AbortController()
    const timer = setTimeout(() => finish(new ChorusError('ERR_BENCH_WS', `stream-input sent no isFinal within ${timeoutMs} ms`)), timeoutMs)
    let settled = false

    function finish (error?: Error): void {
      if (settled) return
      settled = true
      clearTimeout(timer)
      sending.abort()
      open.delete(ws)
      if (error !== undefined) {
        ws.terminate()
        reject(error)
        return
      }
      const sentences = reply.sentences.map((s, i) => ({ characters: [...s.text].length, sentMs: sentMs[i] ?? sentMs[sentMs.length - 1] ?? startMs }))
      resolve(attributeAligned(arrived, sentences) ?? attributeAudio(arrived.map(({ arrivedMs, durationMs }) => ({ arrivedMs, durationMs })), sentences))
    }

    ws.on('unexpected-response', (req, res) => {
      const body: Buffer[] = []
      res.on('data', (chunk: Buffer) => body.push(chunk))
      res.on('end', () => {
        finish(new ChorusError('ERR_BENCH_WS', `GET ${path.split('?')[0]} answered ${res.statusCode ?? 0}: ${Buffer.concat(body).toString().slice(0, 200)}`))
        req.destroy()
      })
    })
    ws.on('error', error => finish(new ChorusError('ERR_BENCH_WS', `stream-input failed: ${error.message}`, { cause: error })))
    ws.on('close', (code, reason) => finish(new ChorusError('ERR_BENCH_WS', `stream-input closed (${code} ${reason.toString()}) before isFinal`)))
    ws.on('message', data => {
      const receivedMs = performance.now()
      let message: { audio?: unknown, isFinal?: unknown, error?: unknown, code?: unknown, alignment?: { chars?: unknown } | null }
      try {
        message = JSON.parse(String(data))
      } catch {
        finish(new ChorusError('ERR_BENCH_WS', `stream-input sent something other than JSON: ${String(data).slice(0, 80)}`))
        return
      }
      if (typeof message.audio === 'string' && message.audio.length > 0) {
        const bytes = Buffer.byteLength(message.audio, 'base64')
        const chars = Array.isArray(message.alignment?.chars) ? message.alignment.chars as unknown[] : []
        const leading = chars.findIndex(char => char !== ' ')
        arrived.push({ arrivedMs: receivedMs, durationMs: bytes / SAMPLE_BYTES / sampleRate * 1000, textAt: leading < 0 ? null : aligned + leading })
        aligned += chars.length
      }
      if (message.error !== undefined) finish(new ChorusError('ERR_BENCH_WS', `stream-input answered ${String(message.code)}: ${String(message.error)}`))
      else if (message.isFinal === true) finish()
    })
    ws.on('open', () => {
      sendTokens(ws, reply, startMs, sentMs, sending.signal).catch((error: unknown) => {
        if (!sending.signal.aborted) finish(error instanceof Error ? error : new Error(String(error)))
      })
    })
  })

  return {
    name: 'websocket',
    firstTextMs: reply => reply.sentences[0]?.endMs ?? 0,
    speak,
    close: () => {
      for (const ws of open) ws.terminate()
      open.clear()
    }
  }
}

/** The first message, each token when it is due, then the end; records when each sentence's last token went. */
async function sendTokens (ws: WebSocket, reply: Reply, startMs: number, sentMs: number[], signal: AbortSignal): Promise<void> {
  ws.send(JSON.stringify({ text: ' ', generation_config: { chunk_length_schedule: SCHEDULE } }))
  for (const token of reply.tokens) {
    await sleep(Math.max(0, startMs + token.atMs - performance.now()), undefined, { signal })
    ws.send(JSON.stringify({ text: token.text }))
    // Sentence ends and token times come from one formula (replies.ts): equal when a token ends a sentence.
    if (token.atMs >= (reply.sentences[sentMs.length]?.endMs ?? Infinity)) sentMs.push(performance.now())
  }
  ws.send(JSON.stringify({ text: '' }))
}
