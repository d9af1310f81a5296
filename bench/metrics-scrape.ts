// Server-side figures from GET /metrics (Prometheus text), sampled while a
// level runs: how deep the queue got, how many requests were pending, how
// much memory the process held, the phrase cache's hits and misses, and how
// many voices were loaded and evicted (a many-voice mix's churn).

import type { BenchClient } from './client.js'
import type { ServerFigures } from './results.js'

/** Metric name → value, summed over label sets (the harness wants totals). */
export function parsePrometheus (text: string): Map<string, number> {
  const values = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    // name{labels} value [timestamp]; label values may hold spaces, so the
    // name ends at '{' or the first space, and the value follows the labels.
    const match = /^([A-Za-z_:][\w:]*)(?:\{.*\})?\s+(\S+)/.exec(line)
    if (match === null) continue
    const value = Number(match[2])
    if (Number.isNaN(value)) continue
    values.set(match[1], (values.get(match[1]) ?? 0) + value)
  }
  return values
}

const QUEUE = 'chorus_queue_depth'
const PENDING = 'chorus_pending_requests'
const RSS = 'process_resident_memory_bytes'
const HITS = 'chorus_cache_hits_total'
const MISSES = 'chorus_cache_misses_total'
const LOADS = 'chorus_voice_loads_total'
const EVICTIONS = 'chorus_voice_evictions_total'

export class MetricsScraper {
  private timer: NodeJS.Timeout | undefined
  private readonly queue: number[] = []
  private readonly pending: number[] = []
  private readonly rss: number[] = []
  private first: Map<string, number> | undefined
  private last: Map<string, number> | undefined
  private failures = 0
  private inFlight: Promise<void> | undefined
  /** The latest sample, for the progress line. */
  latest: { queue: number, pending: number, rss: number } | undefined

  constructor (private readonly client: BenchClient, private readonly intervalMs: number) {}

  async start (): Promise<void> {
    await this.scrape()
    this.timer = setInterval(() => { this.inFlight ??= this.scrape().finally(() => { this.inFlight = undefined }) }, this.intervalMs)
  }

  /** Stops sampling, takes a last sample and sums up; null if /metrics never answered. */
  async stop (): Promise<ServerFigures | null> {
    clearInterval(this.timer)
    await this.inFlight
    await this.scrape()
    if (this.first === undefined || this.last === undefined) return null
    const delta = (name: string): number | null => {
      const end = this.last?.get(name)
      return end === undefined ? null : end - (this.first?.get(name) ?? 0)
    }
    return {
      samples: this.queue.length,
      failedScrapes: this.failures,
      queueDepth: summary(this.queue),
      pendingRequests: summary(this.pending),
      rssBytes: summary(this.rss),
      cacheHits: delta(HITS),
      cacheMisses: delta(MISSES),
      voiceLoads: delta(LOADS),
      // A labelled counter appears only once it counted: a server that reports
      // loads but shows no evictions evicted nothing.
      voiceEvictions: this.last.has(LOADS) ? (delta(EVICTIONS) ?? 0) : null
    }
  }

  private async scrape (): Promise<void> {
    let values: Map<string, number>
    try {
      values = parsePrometheus(await this.client.getText('/metrics'))
    } catch {
      // A server without /metrics, or a scrape lost under load: the run goes
      // on and the report shows how many scrapes failed.
      this.failures++
      return
    }
    this.first ??= values
    this.last = values
    const queue = values.get(QUEUE)
    const pending = values.get(PENDING)
    const rss = values.get(RSS)
    if (queue !== undefined) this.queue.push(queue)
    if (pending !== undefined) this.pending.push(pending)
    if (rss !== undefined) this.rss.push(rss)
    this.latest = { queue: queue ?? Number.NaN, pending: pending ?? Number.NaN, rss: rss ?? Number.NaN }
  }
}

function summary (values: number[]): { mean: number, max: number } | null {
  if (values.length === 0) return null
  return { mean: values.reduce((sum, value) => sum + value, 0) / values.length, max: Math.max(...values) }
}
