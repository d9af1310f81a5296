// The service under test: one already running (--url), or one started in
// this process for the run over a voice folder, configured like `chorus serve`
// (TTS_* variables) except where the harness must decide: loopback, a free
// port, the default voice, and its logs in a file instead of the terminal.

import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { loadServiceConfig } from '../src/service/config.js'
import type { Env } from '../src/shared/config-values.js'
import { createLogger } from '../src/shared/logger.js'
import { startService } from '../src/service/server.js'
import { ChorusError, ConfigError } from '../src/errors.js'
import type { BenchClient } from './client.js'

export interface InProcessService {
  url: string
  workersPerVoice: number
  close: () => Promise<void>
}

export interface InProcessOptions {
  voiceDir: string
  /** Loaded at start-up, so its memory is measured before any load. */
  defaultVoice: string | undefined
  env: Env
  logFile: string
  /** Variables the harness itself must set (e.g. the cache size for one phase). */
  overrides?: Record<string, string>
}

export async function startInProcess (options: InProcessOptions): Promise<InProcessService> {
  const config = loadServiceConfig({
    ...options.env,
    // Per-request info lines would cost the shared event loop at high rates.
    CHORUS_LOG_LEVEL: options.env.CHORUS_LOG_LEVEL ?? options.env.TTS_LOG_LEVEL ?? 'warn',
    ...options.overrides,
    TTS_HTTP_HOST: '127.0.0.1',
    TTS_HTTP_PORT: '0',
    TTS_VOICE_DIR: options.voiceDir,
    ...(options.defaultVoice === undefined ? {} : { TTS_DEFAULT_VOICE: options.defaultVoice })
  })
  const log = createWriteStream(options.logFile, { flags: 'a' })
  const logger = createLogger('chorus-tts', config.logLevel, log)
  const service = await startService(config, logger)
  // Measured from a loaded default voice, as before the port was bound first.
  await service.defaultVoiceLoaded
  let closing: Promise<void> | undefined
  return {
    url: service.url,
    workersPerVoice: config.workersPerVoice,
    close: async () => {
      closing ??= (async () => {
        await service.close()
        log.end()
        await once(log, 'close')
      })()
      await closing
    }
  }
}

/** A voice as GET /voices describes it. */
export interface ServedVoice {
  name: string
  numSpeakers: number
  modelBytes: number
  memoryBytes: number | null
  loaded: boolean
}

export interface ServiceInfo {
  defaultVoice: string
  voices: Map<string, ServedVoice>
}

/** GET /health and GET /voices: what the service serves, and its default voice. */
export async function describeService (client: BenchClient): Promise<ServiceInfo> {
  const health = await client.getJson('/health') as { default_voice?: unknown }
  const listing = await client.getJson('/voices') as { details?: unknown }
  if (typeof health.default_voice !== 'string' || !Array.isArray(listing.details)) {
    throw new ChorusError('ERR_BENCH_HTTP', `${client.baseUrl} does not answer /health and /voices as Chorus does`)
  }
  const voices = new Map<string, ServedVoice>()
  for (const detail of listing.details as Array<Record<string, unknown>>) {
    if (typeof detail.name !== 'string') continue
    voices.set(detail.name, {
      name: detail.name,
      numSpeakers: typeof detail.num_speakers === 'number' ? detail.num_speakers : 1,
      modelBytes: typeof detail.model_bytes === 'number' ? detail.model_bytes : 0,
      memoryBytes: typeof detail.memory_bytes === 'number' ? detail.memory_bytes : null,
      loaded: detail.loaded === true
    })
  }
  return { defaultVoice: health.default_voice, voices }
}

/** Every voice of the mix must be served; the error lists what is. */
export function checkVoices (names: readonly string[], info: ServiceInfo): void {
  for (const name of names) {
    if (!info.voices.has(name)) {
      throw new ConfigError(`Voice ${name} is not served by the service (it serves ${[...info.voices.keys()].join(', ')})`)
    }
  }
}
