// The live progress line on stderr: shown on a terminal (rewritten in place)
// or with --progress (one line a second, for logs); silent otherwise, so
// piped output stays clean.

import type { Writable } from 'node:stream'
import type { Sample } from './client.js'
import { quantile } from './stats.js'
import { num } from './table.js'

export interface ProgressOptions {
  stream: Writable
  enabled: boolean
  /** Rewrite one line in place (a terminal) rather than print a line per tick. */
  inPlace: boolean
}

const RECENT = 1024

interface Level {
  label: string
  startMs: number
  /** Planned length in ms (warm-up included), or requests when held for a count. */
  planned: { ms: number } | { requests: number }
  latencies: number[]
  ok: number
  errors: number
  audioSeconds: number
}

export class Progress {
  private level: Level | undefined
  private timer: NodeJS.Timeout | undefined
  private server: () => { queue: number, pending: number } | undefined = () => undefined

  constructor (private readonly options: ProgressOptions) {}

  /** A one-off message about what the run is doing. */
  note (message: string): void {
    if (!this.options.enabled) return
    this.clear()
    this.options.stream.write(`${message}\n`)
  }

  begin (label: string, planned: Level['planned'], server?: () => { queue: number, pending: number } | undefined): void {
    if (!this.options.enabled) return
    this.level = { label, startMs: performance.now(), planned, latencies: [], ok: 0, errors: 0, audioSeconds: 0 }
    this.server = server ?? (() => undefined)
    this.timer = setInterval(() => this.render(), this.options.inPlace ? 250 : 1000)
  }

  sample (sample: Sample): void {
    const level = this.level
    if (level === undefined) return
    if (sample.error === undefined) {
      // The line shows a recent median: sorting every latency of a long
      // GET /health level four times a second would load the harness.
      if (level.latencies.length >= RECENT * 2) level.latencies.splice(0, RECENT)
      level.latencies.push(sample.latencyMs)
      level.ok++
      level.audioSeconds += sample.audioSeconds
    } else {
      level.errors++
    }
  }

  end (): void {
    if (this.level === undefined) return
    clearInterval(this.timer)
    this.render()
    if (this.options.inPlace) this.options.stream.write('\n')
    this.level = undefined
  }

  private render (): void {
    const level = this.level
    if (level === undefined) return
    const elapsed = (performance.now() - level.startMs) / 1000
    const done = level.ok
    const planned = 'ms' in level.planned
      ? (elapsed * 1000 > level.planned.ms ? 'finishing' : `${elapsed.toFixed(0)}/${(level.planned.ms / 1000).toFixed(0)} s`)
      : `${done + level.errors}/${level.planned.requests} req`
    const server = this.server()
    const parts = [
      level.label,
      planned,
      `ok ${done}`,
      `err ${level.errors}`,
      `${num(done / Math.max(elapsed, 1e-3))} req/s`,
      `${num(level.audioSeconds / Math.max(elapsed, 1e-3))} audio s/s`,
      `p50 ${num(quantile(level.latencies, 0.5))} ms`,
      ...(server === undefined ? [] : [`queue ${num(server.queue)}`, `pending ${num(server.pending)}`])
    ]
    const line = parts.join('  ')
    this.options.stream.write(this.options.inPlace ? `\r\x1b[2K${line}` : `${line}\n`)
  }

  private clear (): void {
    if (this.options.inPlace && this.level !== undefined) this.options.stream.write('\r\x1b[2K')
  }
}
