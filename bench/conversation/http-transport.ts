// The HTTP transport of the conversation benchmarks: each sentence of a
// reply is POST /tts?stream=1 as soon as its last token has arrived, with
// the bot's key as a Bearer token when it has one; the streamed WAV body is
// metered as it arrives. Each sentence carries its own X-Request-Id and
// names the sentence before it in `after`, as a bot should (docs/api.md):
// the service then schedules the sentence being heard first.

import { Agent, request } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import { ChorusError } from '../../src/errors.js'
import { WavMeter } from '../wav.js'
import type { AudioPiece } from './player.js'
import type { Speaker, SpeechTransport } from './transport.js'

/** Audio as it arrived: performance.now() times, durations in ms. */
type ArrivedAudio = Omit<AudioPiece, 'askedMs'>

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

export function httpStreamTransport (baseUrl: string, timeoutMs: number): SpeechTransport {
  const url = new URL(baseUrl)
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY })

  let replies = 0
  const post = async (text: string, speaker: Speaker, id: string, after: string | undefined): Promise<ArrivedAudio[]> => await new Promise((resolve, reject) => {
    const body = JSON.stringify({ text, voice: speaker.voice, ...(after === undefined ? {} : { after }) })
    const pieces = new WavPieces()
    const req = request({
      host: url.hostname,
      port: url.port,
      path: '/tts?stream=1',
      method: 'POST',
      agent,
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'X-Request-Id': id,
        ...(speaker.apiKey === undefined ? {} : { Authorization: `Bearer ${speaker.apiKey}` })
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

  return {
    name: 'http',
    speak: async (reply, startMs, speaker) => {
      const prefix = `bench-${process.pid}-${replies++}`
      const spoken = await Promise.all(reply.sentences.map(async (sentence, i) => {
        await sleep(Math.max(0, startMs + sentence.endMs - performance.now()))
        const askedMs = performance.now()
        const audio = await post(sentence.text, speaker, `${prefix}-${i}`, i === 0 ? undefined : `${prefix}-${i - 1}`)
        return audio.map((piece): AudioPiece => ({ ...piece, askedMs }))
      }))
      return spoken.flat()
    },
    close: () => agent.destroy()
  }
}
