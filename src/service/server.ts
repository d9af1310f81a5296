// Starts the TTS service: engine runtime, voice directory, worker pools,
// HTTP server (the shared listen). close() stops accepting, lets requests in
// flight finish (bounded by the request timeout), then stops the pools.

import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from '../shared/logger.js'
import { EncoderPool } from '../audio/encoder-pool.js'
import { initRuntime } from '../engine/index.js'
import { createApp } from '../http/app.js'
import { listen, type RunningServer } from '../shared/listen.js'
import { InferenceGate } from '../pool/inference-gate.js'
import { PoolManager } from '../pool/pool-manager.js'
import { Preloader } from '../pool/preload.js'
import { PhraseCache } from '../synthesis/phrase-cache.js'
import { Synthesizer } from '../synthesis/synthesizer.js'
import { VoiceRegistry } from '../voices/registry.js'
import { VoiceInstaller } from '../voices/installer.js'
import type { ServiceConfig } from './config.js'
import { ServiceMetrics, speechMetrics } from '../http/metrics.js'
import { SpeechService } from '../synthesis/speech-service.js'
import type { ServiceDeps } from '../http/deps.js'

export interface RunningService {
  server: Server
  url: string
  deps: ServiceDeps
  close: () => Promise<void>
}

/** The speech service alone, for a command in this process (chorus say):
 * the same voices, settings and path to bytes as the server, without HTTP,
 * metrics, cache or folder watching. */
export interface LocalSpeech {
  speech: SpeechService
  registry: VoiceRegistry
  close: () => Promise<void>
}

export async function openLocalSpeech (config: ServiceConfig, log: Logger): Promise<LocalSpeech> {
  const runtime = initRuntime({ ortLibrary: config.ortLibrary, espeakData: config.espeakData })
  const registry = new VoiceRegistry(config.voiceDir, log, config.rescanMs)
  await registry.rescan()
  // One voice, one request: one worker, no idle reaping.
  const pools = new PoolManager({
    workers: 1,
    onnxThreads: config.onnxThreads,
    onnxEncoderThreads: config.onnxEncoderThreads,
    maxLoadedVoices: 1,
    chunking: config.chunking,
    memoryBudgetBytes: config.voiceMemoryBytes,
    gate: new InferenceGate(config.maxConcurrentInferences),
    workerIdleMs: 0,
    ortLibrary: config.ortLibrary,
    espeakData: config.espeakData
  }, log)
  const encoders = new EncoderPool(1, log)
  const synthesizer = new Synthesizer(config, registry, pools, runtime, log)
  const uncounted = { cacheHit: () => {}, cacheMiss: () => {}, speech: () => {} }
  const speech = new SpeechService(config, synthesizer, new PhraseCache(0), encoders, uncounted)
  return {
    speech,
    registry,
    close: async () => {
      registry.close()
      await Promise.all([pools.close(), encoders.close()])
    }
  }
}

/** The admin API's installer: its changes show at once, not at the next rescan. */
function voiceInstaller (config: ServiceConfig, registry: VoiceRegistry, log: Logger): VoiceInstaller {
  const installLog = log.child({ component: 'voice-installer' })
  return new VoiceInstaller({
    voiceDir: config.voiceDir,
    catalogPath: config.voiceCatalog,
    source: config.voiceSource,
    log: { info: (fields, message) => installLog.info(fields, message), warn: (fields, message) => installLog.warn(fields, message) },
    onChange: async () => await registry.rescan()
  })
}

export async function startService (config: ServiceConfig, log: Logger): Promise<RunningService> {
  const runtime = initRuntime({ ortLibrary: config.ortLibrary, espeakData: config.espeakData })
  const registry = new VoiceRegistry(config.voiceDir, log, config.rescanMs)
  await registry.start()
  const pools = new PoolManager({
    workers: config.workersPerVoice,
    onnxThreads: config.onnxThreads,
    onnxEncoderThreads: config.onnxEncoderThreads,
    maxLoadedVoices: config.maxLoadedVoices,
    chunking: config.chunking,
    memoryBudgetBytes: config.voiceMemoryBytes,
    gate: new InferenceGate(config.maxConcurrentInferences),
    workerIdleMs: config.workerIdleMs,
    ortLibrary: config.ortLibrary,
    espeakData: config.espeakData
  }, log)
  const cache = new PhraseCache(config.cacheBytes)
  // A removed or replaced voice's pool goes (requests already on it finish),
  // and so does its cached audio.
  registry.on('removed', name => {
    pools.retire(name, 'removed')
    cache.dropVoice(name)
  })
  registry.on('changed', voice => {
    pools.retire(voice.name, 'changed')
    cache.dropVoice(voice.name)
  })
  const synthesizer = new Synthesizer(config, registry, pools, runtime, log)
  const metrics = new ServiceMetrics({
    pendingRequests: () => synthesizer.pending,
    // Sentences waiting for a worker or for an inference slot.
    queuedSentences: () => [...pools.loaded().values()].reduce((sum, pool) => sum + pool.queueSize, 0) + pools.gate.waiting,
    loadedVoices: () => pools.loadedCount,
    cacheBytes: () => cache.bytes,
    voiceMemory: () => pools.memoryByVoice(),
    voiceMemoryBudget: () => pools.budgetBytes,
    voiceMemoryUsed: () => pools.usedBytes,
    inferencesRunning: () => pools.gate.running,
    bufferedBytes: (): number => speech.buffered.bytes
  })
  pools.on('loaded', (voice, seconds) => {
    metrics.voiceLoads.inc({ voice })
    metrics.voiceLoadSeconds.observe({ voice }, seconds)
  })
  pools.on('evicted', (voice, reason) => metrics.voiceEvictions.inc({ voice, reason }))
  const preload = new Preloader(pools, registry, log)
  const encoders = new EncoderPool(config.encoderThreads, log)
  const speech = new SpeechService(config, synthesizer, cache, encoders, speechMetrics(metrics))
  const installer = voiceInstaller(config, registry, log)
  const deps: ServiceDeps = { config, log, runtime, registry, pools, synthesizer, speech, metrics, cache, preload, encoders, installer }

  const fallback = synthesizer.defaultVoice()
  if (!fallback.installed) {
    log.warn({ configured: fallback.configured, effective: fallback.effective, explicit: config.defaultVoiceExplicit },
      config.defaultVoiceExplicit
        ? 'the default voice is not installed: requests without "voice" fail until it is'
        : 'the default voice is not installed: speaking with the built-in voice')
  }
  // The default voice loads before the service listens; TTS_PRELOAD_VOICES
  // after, in the background (GET /ready waits for both).
  const defaultVoice = registry.get(fallback.effective)
  if (defaultVoice !== undefined) {
    try {
      (await pools.acquire(defaultVoice)).release()
    } catch (error) {
      log.error({ err: error, voice: fallback.effective }, 'the default voice failed to load')
    }
  }

  let listening: RunningServer
  try {
    // Requests in flight may finish within their own timeout when the service closes.
    listening = await listen(createApp(deps), config.host, config.port, { graceMs: config.timeoutMs, requestTimeoutMs: config.timeoutMs + 5000 })
  } catch (error) {
    // A busy port: the caller reports it, and no worker may keep the process alive.
    registry.close()
    await Promise.all([pools.close(), encoders.close()])
    throw error
  }
  const { server, url } = listening
  const bound = server.address() as AddressInfo
  // Where it listens (0.0.0.0 is every interface); `url` is where it is reached from here.
  log.info({ address: bound.address, port: bound.port, url, voiceDir: config.voiceDir, voices: synthesizer.voiceNames(), defaultVoice: fallback.effective, ort: runtime.ortVersion }, 'listening')
  // In the background, once listening: the service answers (and /health reports progress) meanwhile.
  preload.start(config.preloadVoices)

  let closing: Promise<void> | undefined
  const close = async (): Promise<void> => {
    closing ??= (async () => {
      log.info('shutting down: finishing requests in flight')
      installer.close()
      await listening.close()
      registry.close()
      await preload.stop()
      await Promise.all([pools.close(), encoders.close()])
      log.info('stopped')
    })()
    return await closing
  }
  return { server, url, deps, close }
}
