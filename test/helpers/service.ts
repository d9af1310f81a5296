// Starts a real service on 127.0.0.1:0 over a private copy of the test
// voices, so tests may add and remove voices freely.

import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { loadServiceConfig } from '../../src/service/config.js'
import { createLogger } from '../../src/shared/logger.js'
import { startService, type RunningService, type ServiceOptions } from '../../src/service/server.js'
import { POLL_HANG_GUARD_MS, REQUEST_HANG_GUARD_MS } from './hang-guard.js'
import { testVoiceDir } from './voices.js'

export interface TestService extends RunningService {
  voiceDir: string
  /** Every log line so far, parsed. */
  logs: Array<Record<string, unknown>>
  /** The first log line, logged already or to come, that `match` accepts:
   * an event to wait on, not a poll. Throws naming `what` only after
   * POLL_HANG_GUARD_MS, to end a hang. */
  logged: (what: string, match: (line: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>>
  stop: () => Promise<void>
}

export async function startTestService (env: Record<string, string> = {}, voices?: string[], options: ServiceOptions = {}): Promise<TestService> {
  const source = await testVoiceDir()
  const voiceDir = await mkdtemp(join(tmpdir(), 'chorus-voices-'))
  const names = voices ?? ['en_US-probe-medium', 'en_GB-probemulti-medium', 'en_US-probeslow-medium']
  for (const name of names) {
    await cp(join(source, `${name}.onnx`), join(voiceDir, `${name}.onnx`))
    await cp(join(source, `${name}.onnx.json`), join(voiceDir, `${name}.onnx.json`))
  }
  const logs: Array<Record<string, unknown>> = []
  const listeners = new Set<(line: Record<string, unknown>) => void>()
  const sink = new Writable({
    write (chunk, _encoding, done) {
      for (const text of String(chunk).split('\n')) {
        if (text === '') continue
        const line = JSON.parse(text) as Record<string, unknown>
        logs.push(line)
        for (const listener of listeners) listener(line)
      }
      done()
    }
  })
  const logged = async (what: string, match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    const seen = logs.find(match)
    if (seen !== undefined) return seen
    return await new Promise((resolve, reject) => {
      const guard = setTimeout(() => {
        listeners.delete(listener)
        reject(new Error(`never logged: ${what}`))
      }, POLL_HANG_GUARD_MS)
      guard.unref()
      const listener = (line: Record<string, unknown>): void => {
        if (!match(line)) return
        clearTimeout(guard)
        listeners.delete(listener)
        resolve(line)
      }
      listeners.add(listener)
    })
  }
  const config = loadServiceConfig({
    TTS_HTTP_HOST: '127.0.0.1',
    TTS_HTTP_PORT: '0',
    TTS_VOICE_DIR: voiceDir,
    TTS_DEFAULT_VOICE: 'en_US-probe-medium',
    TTS_WORKERS_PER_VOICE: '2',
    TTS_VOICE_RESCAN_SECONDS: '0.2',
    // The longest allowed: the default 60 s is shorter than a few cold voice
    // loads beside a busy CPU, which then answered 504 where the test
    // expects audio. Tests about the timeout set their own.
    TTS_TIMEOUT_SECONDS: '3600',
    // Off unless a test is about the cache: a hit would hide the work under test.
    TTS_CACHE_BYTES: '0',
    ...env
  })
  const service = await startService(config, createLogger('chorus-tts', 'debug', sink), options)
  // The port is bound before the default voice loads; tests start from a loaded default voice.
  await service.defaultVoiceLoaded
  return {
    ...service,
    voiceDir,
    logs,
    logged,
    stop: async () => {
      await service.close()
      await rm(voiceDir, { recursive: true, force: true })
    }
  }
}

/** Takes every inference slot of the service, so no sentence runs until the
 * returned function gives them back: a request then waits however fast the machine. */
export async function holdSlots (service: TestService): Promise<() => void> {
  const gate = service.deps.pools.gate
  const slots = await Promise.all(Array.from({ length: gate.limit }, async () => await gate.acquire()))
  return () => { for (const release of slots) release() }
}

export interface Reply {
  status: number
  headers: Headers
  body: Buffer
  json: any
}

/** Only bounds a hang, never how fast an answer is (hang-guard.ts). */
export const HANG_GUARD_MS = REQUEST_HANG_GUARD_MS

/** One HTTP exchange, body read whole. */
export async function request (url: string, init: RequestInit = {}): Promise<Reply> {
  const response = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(HANG_GUARD_MS) })
  const body = Buffer.from(await response.arrayBuffer())
  const isJson = (response.headers.get('content-type') ?? '').includes('json')
  return { status: response.status, headers: response.headers, body, json: isJson ? JSON.parse(body.toString()) : undefined }
}

export async function postTts (base: string, body: unknown, path = '/tts', timeoutMs = HANG_GUARD_MS): Promise<Reply> {
  return await request(base + path, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(timeoutMs) })
}
