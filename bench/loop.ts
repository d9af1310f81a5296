// What both load models share: a warm-up, then a measured window held for a
// duration or a request count. Requests due after the warm-up are measured
// (their latencies count, even those that finish after the window); the
// throughput counts what completed inside the window.

import type { Sample } from './client.js'

export interface WindowSpec {
  warmupMs: number
  /** Exactly one of durationMs and requests. */
  durationMs?: number
  requests?: number
}

export interface LoopResult {
  /** Requests due inside the window. */
  measured: Sample[]
  /** Every request, warm-up included (throughput counts completions in the window). */
  all: Sample[]
  windowStartMs: number
  windowEndMs: number
}

export type Admission = 'warm-up' | 'measured' | 'stop'

export class MeasureWindow {
  readonly startMs: number
  private admitted = 0
  private readonly measured: Sample[] = []
  private readonly all: Sample[] = []

  constructor (loopStartMs: number, private readonly spec: WindowSpec) {
    if ((spec.durationMs === undefined) === (spec.requests === undefined)) {
      throw new Error('A load level is held for a duration or a request count, not both or neither')
    }
    this.startMs = loopStartMs + spec.warmupMs
  }

  /** Decides the fate of a request due at `dueMs`; call once per request, in order. */
  admit (dueMs: number): Admission {
    if (dueMs < this.startMs) return 'warm-up'
    if (this.spec.durationMs !== undefined) return dueMs < this.startMs + this.spec.durationMs ? 'measured' : 'stop'
    if (this.admitted >= (this.spec.requests as number)) return 'stop'
    this.admitted++
    return 'measured'
  }

  record (sample: Sample, admission: Admission): void {
    this.all.push(sample)
    if (admission === 'measured') this.measured.push(sample)
  }

  /** Call when every request has finished. */
  result (): LoopResult {
    const endMs = this.spec.durationMs !== undefined
      ? this.startMs + this.spec.durationMs
      : this.measured.reduce((latest, sample) => Math.max(latest, sample.endMs), this.startMs)
    return { measured: this.measured, all: this.all, windowStartMs: this.startMs, windowEndMs: endMs }
  }
}
