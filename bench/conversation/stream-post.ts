// One POST /tts?stream=1 of the conversation benchmarks' HTTP transports:
// the body sent on a keep-alive agent with its X-Request-Id and the bot's
// key as a Bearer token, the streamed WAV metered as it arrives into pieces
// of audio with their arrival times. A non-200 answer, or a stream cut
// before its last byte, rejects with what the service said. StreamPoster is
// what each HTTP transport (per sentence, whole reply) holds: its agent, its
// request ids, and the moment each POST was asked for.

import { Agent, request } from 'node:http'
import { ChorusError } from '../../src/errors.js'
import { WavMeter } from '../wav.js'
import type { AudioPiece } from './player.js'
import type { Speaker } from './transport.js'

/** Audio as it arrived: performance.now() times, durations in ms. */
export type ArrivedAudio = Omit<AudioPiece, 'askedMs'>

/** Turns a growing WAV body into pieces of audio with their arrival times. */
class WavPieces {
  private readonly meter = new WavMeter()
  private seconds = 0
  readonly pieces: ArrivedAudio[] = []

  push (bytes: Buffer): void {
    this.meter.push(bytes)
    const seconds = this.meter.audioSeconds
    if (seconds > this.seconds) {
      this.pieces.push({ arrivedMs: performance.now(), durationMs: (seconds - this.seconds) * 1000 })
      this.seconds = seconds
    }
  }
}

export interface StreamPost {
  url: URL
  agent: Agent
  timeoutMs: number
  /** The JSON body's fields besides the voice. */
  fields: { text: string, after?: string }
  speaker: Speaker
  requestId: string
}

/** One transport's POSTs to one service, on one keep-alive agent. */
export class StreamPoster {
  private readonly url: URL
  private readonly agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY })
  private replies = 0

  constructor (baseUrl: string, private readonly timeoutMs: number) {
    this.url = new URL(baseUrl)
  }

  /** A new reply's request id, unique in this process: `bench-<pid>-<tag><n>`. */
  replyId (tag = ''): string {
    return `bench-${process.pid}-${tag}${this.replies++}`
  }

  /** POSTs `fields` now: every piece of its audio was asked for at this moment. */
  async ask (fields: StreamPost['fields'], speaker: Speaker, requestId: string): Promise<AudioPiece[]> {
    const askedMs = performance.now()
    const audio = await postStream({ url: this.url, agent: this.agent, timeoutMs: this.timeoutMs, fields, speaker, requestId })
    return audio.map((piece): AudioPiece => ({ ...piece, askedMs }))
  }

  close (): void {
    this.agent.destroy()
  }
}

export async function postStream (post: StreamPost): Promise<ArrivedAudio[]> {
  return await new Promise((resolve, reject) => {
    const body = JSON.stringify({ ...post.fields, voice: post.speaker.voice })
    const pieces = new WavPieces()
    const req = request({
      host: post.url.hostname,
      port: post.url.port,
      path: '/tts?stream=1',
      method: 'POST',
      agent: post.agent,
      signal: AbortSignal.timeout(post.timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'X-Request-Id': post.requestId,
        ...(post.speaker.apiKey === undefined ? {} : { Authorization: `Bearer ${post.speaker.apiKey}` })
      }
    }, res => {
      const failed = res.statusCode !== 200
      const errorBody: Buffer[] = []
      res.on('data', (chunk: Buffer) => { if (failed) errorBody.push(chunk); else pieces.push(chunk) })
      res.on('end', () => {
        if (failed) reject(new ChorusError('ERR_BENCH_HTTP', `POST /tts?stream=1 answered ${res.statusCode ?? 0}: ${Buffer.concat(errorBody).toString().slice(0, 200)}`))
        else resolve(pieces.pieces)
      })
      // The service cuts a stream it cannot finish (its timeout) without the final chunk.
      res.on('error', error => reject(new ChorusError('ERR_BENCH_HTTP', `POST /tts?stream=1 ended before its last byte (${error.message})`, { cause: error })))
    })
    req.on('error', error => reject(new ChorusError('ERR_BENCH_HTTP', `POST /tts?stream=1 failed: ${error.message}`, { cause: error })))
    req.end(body)
  })
}
