// Prometheus metrics (prom-client), on a registry of the service's own so
// several services in one process (tests) do not collide.

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

export interface MetricsSources {
  pendingRequests: () => number
  queuedSentences: () => number
  loadedVoices: () => number
  cacheBytes: () => number
}

export class ServiceMetrics {
  readonly registry = new Registry()
  readonly requests: Counter<'route' | 'method' | 'status'>
  readonly latency: Histogram<'route'>
  readonly audioSeconds: Counter<'voice'>
  readonly realTimeFactor: Histogram<'voice'>
  readonly cacheHits: Counter
  readonly cacheMisses: Counter

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
    new Gauge({ name: 'chorus_pending_requests', help: 'Synthesis requests admitted and not finished', registers, collect () { this.set(sources.pendingRequests()) } })
    new Gauge({ name: 'chorus_queue_depth', help: 'Sentences waiting for a worker, all voices', registers, collect () { this.set(sources.queuedSentences()) } })
    new Gauge({ name: 'chorus_loaded_voices', help: 'Voices with a loaded worker pool', registers, collect () { this.set(sources.loadedVoices()) } })
    new Gauge({ name: 'chorus_cache_bytes', help: 'Bytes of audio in the phrase cache', registers, collect () { this.set(sources.cacheBytes()) } })
  }
}
