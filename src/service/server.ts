// Starts the TTS service: engine runtime, voice directory, worker pools,
// HTTP server (the shared listen), then the default voice's load. close() is
// the drain: /ready answers 503, no new connections, answers in flight and
// WebSocket contexts speak what they have (bounded by TTS_DRAIN_GRACE_SECONDS,
// docs/deployment.md), then the pools stop.

import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Logger } from '../shared/logger.js'
import { EncoderPool } from '../audio/encoder-pool.js'
import { initRuntime, taskTimes } from '../engine/index.js'
import type Router from '@koa/router'
import { createApp, serviceRouter } from '../http/app.js'
import type { ChorusState } from '../http/context.js'
import { listen, type RunningServer } from '../shared/listen.js'
import { InferenceGate } from '../pool/inference-gate.js'
import { overBudgetReason, PoolManager } from '../pool/pool-manager.js'
import { Preloader } from '../pool/preload.js'
import { PhraseCache } from '../synthesis/phrase-cache.js'
import { FolderLexicons } from '../lexicons/folder-files.js'
import { LexiconStore } from '../lexicons/store.js'
import { Synthesizer } from '../synthesis/synthesizer.js'
import { VoiceRegistry } from '../voices/registry.js'
import { VoiceInstaller } from '../voices/installer.js'
import type { ServiceConfig } from './config.js'
import { accessCounts, ServiceMetrics, speechMetrics } from '../http/metrics.js'
import { ApiAccess } from '../access/access.js'
import { KeyStore } from '../access/key-store.js'
import { Quotas, type Clock } from '../access/quotas.js'
import { SpeechService } from '../synthesis/speech-service.js'
import type { ServiceDeps } from '../http/deps.js'
import { attachWebSockets, type WebSockets } from '../websocket/upgrade.js'
import type { PlaybackClock } from '../synthesis/heard.js'
import { cartesiaProtocol } from '../cartesia/protocol.js'
import { deepgramProtocol } from '../deepgram/protocol.js'
import { frontDoor, REPLICA_HEADER, type FrontDoor } from './front-door.js'

export interface RunningService {
  server: Server
  url: string
  deps: ServiceDeps
  /** Every HTTP route it answers (admission decides each before it runs). */
  router: Router<ChorusState>
  /** The input-streaming WebSocket's sockets (docs/websocket.md). */
  websockets: WebSockets
  /** Settles once the default voice has loaded (or failed to): the port is bound before. */
  defaultVoiceLoaded: Promise<void>
  close: () => Promise<void>
}

/** The speech service alone, for a command in this process (chorus say):
 * the same voices, settings and path to bytes as the server, without HTTP,
 * metrics, cache or folder watching. */
export interface LocalSpeech {
  speech: SpeechService
  close: () => Promise<void>
}

/** The installed lexicons and the voice folder's, read now; a store that
 * cannot be read is logged and starts empty (speech goes on without it). */
async function openLexicons (config: ServiceConfig, log: Logger): Promise<LexiconStore> {
  const store = new LexiconStore(config.lexiconDir, new FolderLexicons(config.voiceDir, log), log)
  await store.load().catch((error: Error) => log.warn({ err: error, dir: config.lexiconDir }, 'cannot read the lexicon folder'))
  return store
}

/** The voices' worker pools: the service's settings, or one worker per voice
 * and a single loaded voice for `chorus say` (one voice, one request). */
function voicePools (config: ServiceConfig, log: Logger, local: boolean): PoolManager {
  return new PoolManager({
    workers: local ? 1 : config.workersPerVoice,
    onnxThreads: config.onnxThreads,
    onnxEncoderThreads: config.onnxEncoderThreads,
    liftConvolutions: config.liftConvolutions,
    bandAttention: config.bandAttention,
    maxLoadedVoices: local ? 1 : config.maxLoadedVoices,
    chunking: config.chunking,
    memoryBudgetBytes: config.voiceMemoryBytes,
    gate: new InferenceGate(config.maxConcurrentInferences, config.scheduler),
    workerIdleMs: local ? 0 : config.workerIdleMs,
    ortLibrary: config.ortLibrary,
    espeakData: config.espeakData
  }, log)
}

export async function openLocalSpeech (config: ServiceConfig, log: Logger): Promise<LocalSpeech> {
  const runtime = initRuntime({ ortLibrary: config.ortLibrary, espeakData: config.espeakData })
  const registry = new VoiceRegistry(config.voiceDir, log, config.rescanMs, bytes => overBudgetReason(bytes, config.voiceMemoryBytes))
  await registry.rescan()
  const pools = voicePools(config, log, true)
  const encoders = new EncoderPool(1, log, { avcodecLibrary: config.avcodecLibrary })
  const synthesizer = new Synthesizer({ ...config, voiceFolder: config.voiceDir }, registry, pools, runtime, log, await openLexicons(config, log))
  const uncounted = { cacheHit: () => {}, cacheMiss: () => {}, speech: () => {} }
  const speech = new SpeechService(config, synthesizer, new PhraseCache(0), encoders, uncounted)
  return {
    speech,
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
    deadlineMs: config.voiceDownload.deadlineMs,
    stallMs: config.voiceDownload.stallMs,
    log: { info: (fields, message) => installLog.info(fields, message), warn: (fields, message) => installLog.warn(fields, message) },
    onChange: async () => await registry.rescan()
  })
}

export interface ServiceOptions {
  /** The quotas' clock (milliseconds, monotonic): tests hold it still so a
   * quota's minute never slides under them. */
  quotaClock?: Clock
  /** The clock an interrupted answer's playback position is estimated on
   * (milliseconds, monotonic): tests move it by hand (synthesis/heard.ts). */
  playbackClock?: PlaybackClock
  /** Arms the drain's grace period; returns its cancel. Tests hold it and
   * expire it when they choose. */
  drainTimer?: DrainTimer
}

export type DrainTimer = (ms: number, expire: () => void) => () => void

const realDrainTimer: DrainTimer = (ms, expire) => {
  const timer = setTimeout(expire, ms)
  timer.unref()
  return () => clearTimeout(timer)
}

/** A removed or replaced voice's pool goes (requests already on it finish),
 * and so does its cached audio. */
function followVoiceChanges (registry: VoiceRegistry, pools: PoolManager, cache: PhraseCache): void {
  registry.on('removed', name => {
    pools.retire(name, 'removed')
    cache.dropVoice(name)
  })
  registry.on('changed', voice => {
    pools.retire(voice.name, 'changed')
    cache.dropVoice(voice.name)
  })
}

/** The service's metrics, read from its parts at each scrape. */
function serviceMetrics (synthesizer: Synthesizer, pools: PoolManager, cache: PhraseCache, bufferedBytes: () => number): ServiceMetrics {
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
    inferenceSlotSeconds: () => pools.gate.heldSeconds,
    inferenceWaitSeconds: () => pools.gate.waitedSeconds,
    engineTasks: taskTimes,
    bufferedBytes
  })
  pools.on('loaded', (voice, seconds) => {
    metrics.voiceLoads.inc({ voice })
    metrics.voiceLoadSeconds.observe({ voice }, seconds)
  })
  pools.on('evicted', (voice, reason) => metrics.voiceEvictions.inc({ voice, reason }))
  return metrics
}

/** The one admission every door calls: keys (watched), quotas, allowed hosts and pages. */
function serviceAccess (config: ServiceConfig, metrics: ServiceMetrics, options: ServiceOptions, log: Logger): { access: ApiAccess, keys?: KeyStore } {
  const keys = config.apiKeys === undefined ? undefined : new KeyStore(config.apiKeys.file, config.apiKeys.keys, log)
  keys?.watch(config.apiKeysReloadMs)
  const quotas = new Quotas(options.quotaClock ?? (() => performance.now()), config.timeoutMs)
  const access = new ApiAccess(keys, quotas, accessCounts(metrics), { allowedOrigins: config.allowedOrigins, ...(config.allowedHosts === undefined ? {} : { allowedHosts: config.allowedHosts }) })
  return keys === undefined ? { access } : { access, keys }
}

function warnDefaultVoiceMissing (synthesizer: Synthesizer, config: ServiceConfig, log: Logger): ReturnType<Synthesizer['defaultVoice']> {
  const fallback = synthesizer.defaultVoice()
  if (!fallback.installed) {
    log.warn({ configured: fallback.configured, effective: fallback.effective, explicit: config.defaultVoiceExplicit },
      config.defaultVoiceExplicit
        ? 'the default voice is not installed: requests without "voice" fail until it is'
        : 'the default voice is not installed: speaking with the built-in voice')
  }
  return fallback
}

// The port is bound first, so /health answers at once and an orchestrator
// sees a live process; /ready answers 503 until the default voice (then
// TTS_PRELOAD_VOICES, in the background) is loaded. A request for the
// default voice meanwhile waits for its load, as for any cold voice,
// within its own timeout (docs/deployment.md, "Start-up").
function loadDefaultVoice (registry: VoiceRegistry, pools: PoolManager, name: string, log: Logger): Promise<void> {
  const voice = registry.get(name)
  if (voice === undefined) return Promise.resolve()
  return pools.acquire(voice).then(lease => lease.release(), (error: unknown) => {
    log.error({ err: error, voice: name }, 'the default voice failed to load')
  })
}

export async function startService (config: ServiceConfig, log: Logger, options: ServiceOptions = {}): Promise<RunningService> {
  const runtime = initRuntime({ ortLibrary: config.ortLibrary, espeakData: config.espeakData })
  const registry = new VoiceRegistry(config.voiceDir, log, config.rescanMs, bytes => overBudgetReason(bytes, config.voiceMemoryBytes))
  await registry.start()
  const pools = voicePools(config, log, false)
  const cache = new PhraseCache(config.cacheBytes)
  followVoiceChanges(registry, pools, cache)
  const lexicons = await openLexicons(config, log)
  const synthesizer = new Synthesizer(config, registry, pools, runtime, log, lexicons)
  const metrics = serviceMetrics(synthesizer, pools, cache, (): number => speech.buffered.bytes)
  const preload = new Preloader(pools, registry, log)
  const encoders = new EncoderPool(config.encoderThreads, log, { avcodecLibrary: config.avcodecLibrary })
  const { access, keys } = serviceAccess(config, metrics, options, log)
  const speech = new SpeechService(config, synthesizer, cache, encoders, speechMetrics(metrics), options.playbackClock)
  const installer = voiceInstaller(config, registry, log)
  const deps: ServiceDeps = { config, log, runtime, registry, pools, speech, metrics, cache, preload, encoders, access, installer, lexicons }
  const router = serviceRouter(deps)
  const door = frontDoor(createApp(deps, router), config.replicaName)
  deps.draining = () => door.draining
  const fallback = warnDefaultVoiceMissing(synthesizer, config, log)
  let listening: RunningServer
  try {
    // Requests in flight may finish within their own timeout when the service closes.
    listening = await listen(door.app, config.host, config.port, { graceMs: config.drainGraceMs, requestTimeoutMs: config.timeoutMs + 5000 })
  } catch (error) {
    // A busy port: the caller reports it, and no worker may keep the process alive.
    registry.close()
    access.close()
    await Promise.all([pools.close(), encoders.close()])
    throw error
  }
  const { server, url } = listening
  const websockets = attachWebSockets(server, speech, access, { ...config.websocket, openaiVoices: config.openaiVoices, headers: { [REPLICA_HEADER]: config.replicaName } }, log,
    speech.playbackClock, [cartesiaProtocol, deepgramProtocol])
  const bound = server.address() as AddressInfo
  // Where it listens (0.0.0.0 is every interface); `url` is where it is reached from here.
  log.info({ replica: config.replicaName, address: bound.address, port: bound.port, url, voiceDir: config.voiceDir, voices: synthesizer.voiceNames(), defaultVoice: fallback.effective, ort: runtime.ortVersion, apiKeys: keys === undefined ? 'off' : keys.names.size }, 'listening')
  const defaultVoiceLoaded = loadDefaultVoice(registry, pools, fallback.effective, log)
  preload.start(config.preloadVoices, defaultVoiceLoaded)
  const close = drainThenStop({ config, log, options, door, server, listening, websockets, synthesizer, installer, registry, access, preload, pools, encoders, defaultVoiceLoaded })
  return { server, url, deps, router, websockets, defaultVoiceLoaded, close }
}

interface StopParts {
  config: ServiceConfig
  log: Logger
  options: ServiceOptions
  door: FrontDoor
  server: Server
  listening: RunningServer
  websockets: WebSockets
  synthesizer: Synthesizer
  installer: VoiceInstaller
  registry: VoiceRegistry
  access: ApiAccess
  preload: Preloader
  pools: PoolManager
  encoders: EncoderPool
  defaultVoiceLoaded: Promise<void>
}

/** The service's close, once however often it is called: drain (/ready 503,
 * the port closed, answers and WebSocket contexts finish within the grace
 * period, then what is left is cut), then stop every part. */
function drainThenStop (parts: StopParts): () => Promise<void> {
  const { config, log, options, door, server, listening, websockets, synthesizer, installer } = parts
  let closing: Promise<void> | undefined
  return async (): Promise<void> => {
    closing ??= (async () => {
      // /ready turns 503 and the port closes: a proxy sends nothing new here.
      door.beginDrain(server)
      log.info({ graceSeconds: config.drainGraceMs / 1000, sockets: websockets.sessions.size, pendingRequests: synthesizer.pending }, 'draining: finishing answers and WebSocket contexts in flight')
      installer.close()
      const cancelGrace = (options.drainTimer ?? realDrainTimer)(config.drainGraceMs, () => {
        log.warn({ sockets: websockets.sessions.size, pendingRequests: synthesizer.pending }, 'drain grace period over: ending what is left')
        websockets.close()
        server.closeAllConnections()
      })
      await Promise.all([listening.close(), websockets.drain()])
      cancelGrace()
      log.info('drained')
      parts.registry.close()
      parts.access.close()
      await parts.defaultVoiceLoaded
      await parts.preload.stop()
      await Promise.all([parts.pools.close(), parts.encoders.close()])
      log.info('stopped')
    })()
    return await closing
  }
}
