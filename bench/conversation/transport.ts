// How a bot asks for one sentence's speech and hears it arrive. Each
// transport reports every piece of audio as it arrives (arrival time and
// duration), so the player model (player.ts) sees what a listener would.
// - HTTP streams: POST /tts?stream=1, one request per sentence, sent as soon
//   as the sentence's end arrives in the token stream.
// - In process: the service's own speech service, for a request that must
//   carry a tenant before API keys exist on this branch (the fairness
//   benchmark); nothing of it is reachable over the network.
// A WebSocket transport (issue 30's stream-input) implements the same
// interface: one socket per bot, each sentence sent as text, its audio
// messages reported as pieces.

import { Agent, request } from 'node:http'
import { ChorusError } from '../../src/errors.js'
import type { Logger } from '../../src/shared/logger.js'
import type { SpeechService } from '../../src/synthesis/speech-service.js'
import type { Tenant } from '../../src/pool/tenant.js'
import { parseTtsRequest } from '../../src/synthesis/tts-request.js'
import { WavMeter } from '../wav.js'

/** Audio of one sentence as it arrived: performance.now() times, durations in ms. */
export interface ArrivedAudio {
  arrivedMs: number
  durationMs: number
}

export interface SpeechTransport {
  /** Speaks `text` with `voice`; resolves with its audio pieces once the last has arrived. */
  speak: (text: string, voice: string, tenant: Tenant | undefined) => Promise<ArrivedAudio[]>
  close: () => void
}

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
  return {
    speak: async (text, voice) => await new Promise<ArrivedAudio[]>((resolve, reject) => {
      const body = JSON.stringify({ text, voice })
      const pieces = new WavPieces()
      const req = request({
        host: url.hostname,
        port: url.port,
        path: '/tts?stream=1',
        method: 'POST',
        agent,
        signal: AbortSignal.timeout(timeoutMs),
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }
      }, res => {
        const failed = res.statusCode !== 200
        const errorBody: Buffer[] = []
        res.on('data', (chunk: Buffer) => { if (failed) errorBody.push(chunk); else pieces.push(chunk) })
        res.on('end', () => {
          if (failed) reject(new ChorusError('ERR_BENCH_HTTP', `POST /tts?stream=1 answered ${res.statusCode ?? 0}: ${Buffer.concat(errorBody).toString().slice(0, 200)}`))
          else resolve(pieces.pieces)
        })
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end(body)
    }),
    close: () => agent.destroy()
  }
}

export function inProcessTransport (speech: SpeechService, maxTextLength: number, log: Logger): SpeechTransport {
  return {
    speak: async (text, voice, tenant) => {
      const spoken = await speech.open({ request: parseTtsRequest({ text, voice }, maxTextLength), format: 'wav', stream: true, log, tenant })
      const pieces = new WavPieces()
      for await (const chunk of spoken.chunks) if (chunk.kind === 'audio') pieces.push(Buffer.from(chunk.bytes))
      return pieces.pieces
    },
    close: () => {}
  }
}
