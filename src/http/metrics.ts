// Prometheus metrics (prom-client), on a registry of the service's own so
// several services in one process (tests) do not collide.

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { SpeechMetrics } from '../synthesis/speech-service.js'
import type { AccessCounts } from '../access/access.js'

export interface MetricsSources {
  pendingRequests: () => number
  queuedSentences: () => number
  loadedVoices: () => number
  cacheBytes: () => number
  /** Bytes per voice holding memory: loaded, loading (estimate) or retiring. */
  voiceMemory: () => Map<string, number>
  voiceMemoryBudget: () => number
  voiceMemoryUsed: () => number
  inferencesRunning: () => number
  /** Seconds inference slots were held, summed over slots (the gate's). */
  inferenceSlotSeconds: () => number
  /** Seconds granted inferences waited for a slot, summed (the gate's). */
  inferenceWaitSeconds: () => number
  /** The addon's async tasks' totals (engine/task-times.ts). */
  engineTasks: () => Array<{ name: string, wallSeconds: number, cpuSeconds: number, count: number }>
  /** Audio made and not yet taken by its reader, every response together. */
  bufferedBytes: () => number
}

export class ServiceMetrics {
  readonly registry = new Registry()
  readonly requests: Counter<'route' | 'method' | 'status'>
  readonly latency: Histogram<'route'>
  readonly audioSeconds: Counter<'voice'>
  readonly realTimeFactor: Histogram<'voice'>
  readonly cacheHits: Counter
  readonly cacheMisses: Counter
  readonly voiceLoads: Counter<'voice'>
  readonly voiceEvictions: Counter<'voice' | 'reason'>
  readonly voiceLoadSeconds: Histogram<'voice'>
  /** Per API key name: the keys file's names plus "anonymous", nothing else. */
  readonly keyRequests: Counter<'key'>
  readonly keyAudioSeconds: Counter<'key'>
  readonly keyRefusals: Counter<'key' | 'status'>

  constructor (sources: MetricsSources) {
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry })
    this.requests = new Counter({ name: 'chorus_http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'], registers })
    this.latency = new Histogram({
      name: 'chorus_http_request_duration_seconds',
      help: 'Time from a request\'s arrival to its last byte',
      labelNames: ['route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers
    })
    this.audioSeconds = new Counter({ name: 'chorus_audio_seconds_total', help: 'Seconds of audio produced', labelNames: ['voice'], registers })
    this.realTimeFactor = new Histogram({
      name: 'chorus_real_time_factor',
      help: 'Synthesis time divided by audio duration, per request (lower is faster)',
      labelNames: ['voice'],
      buckets: [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
      registers
    })
    this.cacheHits = new Counter({ name: 'chorus_cache_hits_total', help: 'Phrase cache hits', registers })
    this.cacheMisses = new Counter({ name: 'chorus_cache_misses_total', help: 'Phrase cache misses', registers })
    this.voiceLoads = new Counter({ name: 'chorus_voice_loads_total', help: 'Voice pools loaded', labelNames: ['voice'], registers })
    this.voiceEvictions = new Counter({
      name: 'chorus_voice_evictions_total',
      help: 'Voice pools taken out of service, by reason: memory (budget), count (TTS_MAX_LOADED_VOICES), removed, changed, shutdown',
      labelNames: ['voice', 'reason'],
      registers
    })
    this.voiceLoadSeconds = new Histogram({
      name: 'chorus_voice_load_seconds',
      help: 'Time to load a voice\'s pool, every worker ready',
      labelNames: ['voice'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers
    })
    this.keyRequests = new Counter({ name: 'chorus_key_requests_total', help: 'Requests by API key name ("anonymous": no key, or keys off)', labelNames: ['key'], registers })
    this.keyAudioSeconds = new Counter({ name: 'chorus_key_audio_seconds_total', help: 'Seconds of audio synthesised by API key name', labelNames: ['key'], registers })
    this.keyRefusals = new Counter({ name: 'chorus_key_refusals_total', help: 'Requests refused by API key name and status: 401 (no valid key), 429 (over a quota)', labelNames: ['key', 'status'], registers })
    registerSourceMetrics(sources, registers)
  }
}

type Registers = Registry[]

/** A gauge read from its source at each scrape. */
function sourceGauge (name: string, help: string, read: () => number, registers: Registers): void {
  new Gauge({ name, help, registers, collect () { this.set(read()) } })
}

/** A counter whose total is kept elsewhere (the gate's, the addon's), read at each scrape. */
function sourceTotal (name: string, help: string, read: () => number, registers: Registers): void {
  new Counter({
    name,
    help,
    registers,
    collect () {
      this.reset()
      this.inc(read())
    }
  })
}

/** What the service's parts report at each scrape rather than as it happens. */
function registerSourceMetrics (sources: MetricsSources, registers: Registers): void {
  new Gauge({
    name: 'chorus_voice_memory_bytes',
    help: 'Memory per voice: loaded and retiring pools\' figures, loading ones\' estimates',
    labelNames: ['voice'],
    registers,
    collect () {
      this.reset()
      for (const [voice, bytes] of sources.voiceMemory()) this.set({ voice }, bytes)
    }
  })
  sourceGauge('chorus_voice_memory_budget_bytes', 'The memory budget for loaded voices (TTS_VOICE_MEMORY_BYTES)', sources.voiceMemoryBudget, registers)
  sourceGauge('chorus_voice_memory_used_bytes', 'Memory counted against the budget: loaded, loading and retiring voices', sources.voiceMemoryUsed, registers)
  sourceGauge('chorus_inferences_running', 'Sentence inferences running now, all voices (at most TTS_MAX_CONCURRENT_INFERENCES)', sources.inferencesRunning, registers)
  sourceTotal('chorus_inference_slot_seconds_total', 'Seconds inference slots were held, summed over slots: against chorus_engine_task_seconds_total, the cost of handing work to a worker and back', sources.inferenceSlotSeconds, registers)
  sourceTotal('chorus_inference_wait_seconds_total', 'Seconds inferences waited for a slot, summed over the granted ones', sources.inferenceWaitSeconds, registers)
  registerEngineTasks(sources, registers)
  sourceGauge('chorus_pending_requests', 'Synthesis requests admitted and not finished', sources.pendingRequests, registers)
  sourceGauge('chorus_queue_depth', 'Sentences waiting for a worker, all voices', sources.queuedSentences, registers)
  sourceGauge('chorus_loaded_voices', 'Voices with a loaded worker pool', sources.loadedVoices, registers)
  sourceGauge('chorus_buffered_response_bytes', 'Audio made and not yet read by its client, every response (at most TTS_BUFFER_BYTES plus a chunk)', sources.bufferedBytes, registers)
  sourceGauge('chorus_cache_bytes', 'Bytes of audio in the phrase cache', sources.cacheBytes, registers)
}

// Read from the addon at each scrape: it sums over every thread of the process.
function registerEngineTasks (sources: MetricsSources, registers: Registers): void {
  new Counter({
    name: 'chorus_engine_task_seconds_total',
    help: 'Time in the native engine\'s tasks by kind (chorus:encode, chorus:decode, chorus:infer, chorus:phonemize, …) and clock: wall, or cpu (the calling thread\'s; ONNX Runtime\'s intra-op helpers not included)',
    labelNames: ['task', 'clock'],
    registers,
    collect () {
      this.reset()
      for (const task of sources.engineTasks()) {
        this.inc({ task: task.name, clock: 'wall' }, task.wallSeconds)
        this.inc({ task: task.name, clock: 'cpu' }, task.cpuSeconds)
      }
    }
  })
  new Counter({
    name: 'chorus_engine_tasks_total',
    help: 'Native engine tasks finished, by kind',
    labelNames: ['task'],
    registers,
    collect () {
      this.reset()
      for (const task of sources.engineTasks()) this.inc({ task: task.name }, task.count)
    }
  })
}

/** The speech service's counts, on this registry (each tenant's audio is
 * counted by its admission, src/access/access.ts). */
export function speechMetrics (metrics: ServiceMetrics): SpeechMetrics {
  return {
    cacheHit: () => metrics.cacheHits.inc(),
    cacheMiss: () => metrics.cacheMisses.inc(),
    speech: (voice, audioSeconds, elapsedSeconds) => {
      metrics.audioSeconds.inc({ voice }, audioSeconds)
      if (audioSeconds > 0) metrics.realTimeFactor.observe({ voice }, elapsedSeconds / audioSeconds)
    }
  }
}

/** The per-key counts. The label set is bounded by the keys file: a key
 * removed by a reload takes its series with it. */
export function accessCounts (metrics: ServiceMetrics): AccessCounts {
  const seen = new Set<string>()
  const note = (key: string): string => {
    seen.add(key)
    return key
  }
  return {
    request: key => metrics.keyRequests.inc({ key: note(key) }),
    refused: (key, status) => metrics.keyRefusals.inc({ key: note(key), status: String(status) }),
    audio: (key, seconds) => metrics.keyAudioSeconds.inc({ key: note(key) }, seconds),
    retain: names => {
      for (const key of seen) {
        if (key === 'anonymous' || names.has(key)) continue
        metrics.keyRequests.remove({ key })
        metrics.keyAudioSeconds.remove({ key })
        for (const status of ['401', '429']) metrics.keyRefusals.remove({ key, status })
        seen.delete(key)
      }
    }
  }
}
