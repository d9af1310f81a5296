// The harness's HTTP client: node:http over one keep-alive agent. A load
// generator needs what ky (or fetch) hides or costs: the moment the headers
// arrive, the moment the first audio byte arrives, and next to no work per
// request, so the harness is never the bottleneck. It never retries: a retry
// would hide exactly the failures a load test is for.

import { Agent, request, type IncomingMessage } from 'node:http'
import { ChorusError } from '../src/errors.js'
import { type AudioMeter, type BenchFormat, meterFor } from './audio-meter.js'
import { WavMeter } from './wav.js'
import type { WorkItem } from './workload.js'

/** One request as the harness saw it. Times are performance.now() values. */
export interface Sample {
  /** When the request was due: the schedule's time in an open loop, else the send time. */
  scheduledMs: number
  sentMs: number
  endMs: number
  /** From scheduledMs to the last byte. */
  latencyMs: number
  /** From scheduledMs to the first byte of audio (past the WAV header); null if none came. */
  ttfbMs: number | null
  /** 0 when no answer came (connection error, timeout). */
  status: number
  /** Set on failure: the HTTP status, a network error code, "timeout" or "invalid-wav" (audio not in its format). */
  error?: string
  /** The service's own `error` message, for failed HTTP answers. */
  message?: string
  bytes: number
  audioSeconds: number
  characters: number
}

// Enough of an error body to read its message; the rest is drained.
const ERROR_BODY_LIMIT = 4096

class RequestTimeout extends Error {
  readonly code = 'timeout'
}

export class BenchClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: Infinity })
  private readonly host: string
  private readonly port: number
  private readonly prefix: string

  /** `format`: the audio format POST /tts asks for (--format); WAV by default.
   * `apiKey`: sent as a Bearer token on every request (a service with API keys). */
  constructor (readonly baseUrl: string, private readonly timeoutMs: number, private readonly format: BenchFormat = 'wav', private readonly apiKey?: string) {
    const url = new URL(baseUrl)
    this.host = url.hostname.replace(/^\[|\]$/g, '')
    this.port = Number(url.port === '' ? 80 : url.port)
    this.prefix = url.pathname.replace(/\/+$/, '')
  }

  /** POST /tts with the item's body. */
  async synthesize (item: WorkItem, scheduledMs?: number): Promise<Sample> {
    // The body is a JSON object: the format goes in before its closing brace.
    const body = this.format === 'wav' ? item.body : `${item.body.slice(0, -1)},"format":"${this.format}"}`
    return await this.exchange('POST', '/tts', body, item.text.length, true, scheduledMs)
  }

  /** GET /health: the trivial endpoint that shows the harness's own limit. */
  async health (scheduledMs?: number): Promise<Sample> {
    return await this.exchange('GET', '/health', undefined, 0, false, scheduledMs)
  }

  /** A one-off GET whose answer must be 200; rejects with a message naming the request. */
  async getText (path: string): Promise<string> {
    const url = this.baseUrl.replace(/\/+$/, '') + path
    return await new Promise<string>((resolve, reject) => {
      const req = request({ host: this.host, port: this.port, path: this.prefix + path, agent: this.agent, signal: AbortSignal.timeout(this.timeoutMs) }, res => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('error', error => reject(new ChorusError('ERR_BENCH_HTTP', `GET ${url} failed: ${error.message}`, { cause: error })))
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString()
          if (res.statusCode === 200) resolve(body)
          else reject(new ChorusError('ERR_BENCH_HTTP', `GET ${url} answered ${res.statusCode ?? 0}: ${body.slice(0, 200)}`))
        })
      })
      req.on('error', error => reject(new ChorusError('ERR_BENCH_HTTP', `GET ${url} failed: ${error.message}`, { cause: error })))
      req.end()
    })
  }

  async getJson (path: string): Promise<unknown> {
    const text = await this.getText(path)
    try {
      return JSON.parse(text)
    } catch (error) {
      throw new ChorusError('ERR_BENCH_HTTP', `GET ${this.baseUrl}${path} answered something other than JSON`, { cause: error })
    }
  }

  close (): void {
    this.agent.destroy()
  }

  private async exchange (method: 'GET' | 'POST', path: string, body: string | undefined, characters: number, audio: boolean, scheduledMs?: number): Promise<Sample> {
    return await new Promise<Sample>(resolve => {
      const sentMs = performance.now()
      const due = scheduledMs ?? sentMs
      let meter: AudioMeter = new WavMeter()
      let ttfbMs: number | null = null
      let status = 0
      let errorBody = ''
      let settled = false
      const finish = (error?: string, message?: string): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        const endMs = performance.now()
        let audioSeconds = 0
        if (error === undefined && audio) {
          try {
            audioSeconds = meter.finish()
          } catch {
            error = 'invalid-wav'
          }
        }
        resolve({ scheduledMs: due, sentMs, endMs, latencyMs: endMs - due, ttfbMs, status, error, message, bytes: meter.bytes, audioSeconds, characters })
      }
      const headers: Record<string, string | number> = {
        ...(body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }),
        ...(this.apiKey === undefined ? {} : { Authorization: `Bearer ${this.apiKey}` })
      }
      const req = request({ host: this.host, port: this.port, path: this.prefix + path, method, headers, agent: this.agent })
      const timer = setTimeout(() => req.destroy(new RequestTimeout()), this.timeoutMs)
      req.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? 'network'))
      req.on('response', (res: IncomingMessage) => {
        status = res.statusCode ?? 0
        const ok = status === 200
        if (ok && audio) meter = meterFor(res.headers['content-type'])
        res.on('data', (chunk: Buffer) => {
          if (!ok) {
            if (errorBody.length < ERROR_BODY_LIMIT) errorBody += chunk.toString()
            return
          }
          meter.push(chunk)
          if (ttfbMs === null && (!audio || meter.audioBytes > 0)) ttfbMs = performance.now() - due
        })
        res.on('error', (error: NodeJS.ErrnoException) => finish(error.code ?? 'network'))
        // A body cut short (the server gave up mid-stream) ends in 'close' without 'end'.
        res.on('close', () => { if (!res.complete) finish('incomplete') })
        res.on('end', () => ok ? finish() : finish(String(status), errorMessage(errorBody)))
      })
      req.end(body)
    })
  }
}

/** The `error` field of a Chorus error body, if it has one. */
function errorMessage (body: string): string | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    // Not JSON (a proxy's page, a cut body): its start is the best clue.
    return body === '' ? undefined : body.slice(0, 200)
  }
  const error = typeof parsed === 'object' && parsed !== null ? (parsed as { error?: unknown }).error : undefined
  return typeof error === 'string' ? error : body.slice(0, 200)
}
