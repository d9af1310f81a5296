// The soak's load: capacity probes (closed loops, briefly) and the steady
// open loops that hold a fixed rate for the whole run. Unlike the bench's
// loops these keep no per-request records, only counters and fixed-size
// histograms, so a long run's memory stays flat on the harness side too.

import { createHistogram, type RecordableHistogram } from 'node:perf_hooks'
import type { BenchClient, Sample } from '../client.js'
import type { Rng } from '../corpus.js'
import type { Workload } from '../workload.js'

export interface TtsFigures {
  requests: number
  errors: number
  /** Whole-answer latency of non-streamed requests, microseconds from the due time. */
  latency: RecordableHistogram
  /** First audio byte of streamed requests, microseconds from the due time. */
  firstAudio: RecordableHistogram
  lastError?: string
}

export function ttsFigures (): TtsFigures {
  return { requests: 0, errors: 0, latency: createHistogram(), firstAudio: createHistogram() }
}

const micros = (ms: number): number => Math.max(1, Math.round(ms * 1000))

/** Sends one TTS request from the plain or the streaming workload and records it. */
export function ttsSender (client: BenchClient, plain: Workload, streaming: Workload, rng: Rng, figures: () => TtsFigures): (dueMs?: number) => Promise<Sample> {
  return async (dueMs) => {
    const stream = rng.next() < 0.5
    const sample = await client.synthesize((stream ? streaming : plain).next(), dueMs)
    const into = figures()
    into.requests++
    if (sample.error !== undefined) {
      into.errors++
      into.lastError = `${sample.error}${sample.message === undefined ? '' : `: ${sample.message}`}`
    } else if (stream) {
      if (sample.ttfbMs !== null) into.firstAudio.record(micros(sample.ttfbMs))
    } else {
      into.latency.record(micros(sample.latencyMs))
    }
    return sample
  }
}

/**
 * Completed operations per second of `concurrency` workers running `once`
 * back to back for `seconds`, and on until `minCompleted` have completed (a
 * long text can outlast a short probe), but never past 5 × `seconds`.
 */
export async function probeCapacity (concurrency: number, seconds: number, minCompleted: number, once: () => Promise<boolean>): Promise<number> {
  const started = performance.now()
  const endMs = started + seconds * 1000
  const hardEndMs = started + 5 * seconds * 1000
  let completed = 0
  const worker = async (): Promise<void> => {
    for (let now = performance.now(); (now < endMs || completed < minCompleted) && now < hardEndMs; now = performance.now()) {
      if (await once()) completed++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return completed / ((performance.now() - started) / 1000)
}

export interface OpenLoopSpec {
  /** Operations per second, Poisson arrivals. */
  rate: number
  untilMs: number
  maxInFlight: number
  rng: Rng
  /** Starts operation number `index`, due at `dueMs`; must not reject. */
  send: (index: number, dueMs: number) => Promise<unknown>
}

/** Holds a rate until `untilMs`; an arrival beyond maxInFlight waits (and is charged from its due time). */
export async function holdRate (spec: OpenLoopSpec): Promise<number> {
  const inFlight = new Set<Promise<unknown>>()
  let dueMs = performance.now()
  let index = 0
  while (dueMs < spec.untilMs) {
    const wait = dueMs - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    while (inFlight.size >= spec.maxInFlight) await Promise.race(inFlight)
    const operation = spec.send(index++, dueMs).finally(() => inFlight.delete(operation))
    inFlight.add(operation)
    dueMs += spec.rng.exponential(spec.rate) * 1000
  }
  await Promise.all(inFlight)
  return index
}
