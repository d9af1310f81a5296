// Open loop: requests arrive on a schedule, at a fixed rate, whether or not
// earlier ones have been answered, as bots' users do. Latency runs from the
// *scheduled* send time, so a slow server cannot hide its queue by slowing
// the harness down (coordinated omission): a request the harness sends late,
// because its event loop was busy or too many were in flight, is charged
// from when it was due.

import { setImmediate } from 'node:timers/promises'
import type { Sample } from './client.js'
import type { Rng } from './corpus.js'
import { MeasureWindow, type LoopResult, type WindowSpec } from './loop.js'

export type Arrivals = 'constant' | 'poisson'

/**
 * Offsets in ms from the start at which requests are due: evenly spaced
 * ("constant", as wrk2 does) or with exponential gaps ("poisson", independent
 * users). Endless; the caller stops taking.
 */
export function * arrivalOffsets (rate: number, arrivals: Arrivals, rng: Rng): Generator<number> {
  let offset = 0
  for (let i = 1; ; i++) {
    yield offset
    // Constant offsets are multiplied, not summed, so they do not drift.
    offset = arrivals === 'constant' ? i * 1000 / rate : offset + rng.exponential(rate) * 1000
  }
}

export interface OpenLoopOptions extends WindowSpec {
  /** Requests per second. */
  rate: number
  arrivals: Arrivals
  rng: Rng
  /** Sends one request due at scheduledMs (a performance.now() time). */
  send: (scheduledMs: number) => Promise<Sample>
  /** Bound on requests in flight; beyond it arrivals wait (and are charged for it). */
  maxInFlight: number
  onSample?: (sample: Sample) => void
}

export async function runOpenLoop (options: OpenLoopOptions): Promise<LoopResult> {
  const startMs = performance.now()
  const window = new MeasureWindow(startMs, options)
  const inFlight = new Set<Promise<void>>()
  for (const offset of arrivalOffsets(options.rate, options.arrivals, options.rng)) {
    const dueMs = startMs + offset
    const admission = window.admit(dueMs)
    if (admission === 'stop') break
    const wait = dueMs - performance.now()
    // Behind schedule, the arrivals still go out one by one, each after the
    // event loop has had a turn: answers are read and requests really leave,
    // instead of a burst waiting behind this loop.
    if (wait > 1) await sleep(wait)
    else await setImmediate()
    while (inFlight.size >= options.maxInFlight) await Promise.race(inFlight)
    const request: Promise<void> = options.send(dueMs).then(sample => {
      window.record(sample, admission)
      options.onSample?.(sample)
    }).finally(() => inFlight.delete(request))
    inFlight.add(request)
  }
  await Promise.all(inFlight)
  return window.result()
}

async function sleep (ms: number): Promise<void> {
  await new Promise(resolve => setTimeout(resolve, ms))
}
