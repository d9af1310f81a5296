// One load level's figures from its samples. Requests per second counts
// requests that completed inside the measured window. Audio, characters and
// bytes per second spread each request's amount evenly over its time in
// flight and count the part inside the window: a 40-second paragraph that
// straddles the window's edge then counts in part, not all or nothing, which
// would swing a short window's throughput by tens of percent. Latencies count
// every request due in the window that succeeded (failures are counted by
// kind instead, since a fast 503 would flatter the percentiles).

import type { Sample } from './client.js'
import type { LoopResult } from './loop.js'
import type { LevelResult, LoadModel, ServerFigures } from './results.js'
import { percentiles } from './stats.js'

export interface LevelInput {
  model: LoadModel
  load: number
  loop: LoopResult
  server: ServerFigures | null
  /** The ceiling's audio seconds per second, if measured. */
  ceiling: number | null
}

export function summariseLevel ({ model, load, loop, server, ceiling }: LevelInput): LevelResult {
  const windowSeconds = Math.max(1e-9, (loop.windowEndMs - loop.windowStartMs) / 1000)
  const succeeded = loop.all.filter(s => s.error === undefined)
  const completed = succeeded.filter(s => s.endMs >= loop.windowStartMs && s.endMs <= loop.windowEndMs)
  const share = (s: Sample) => shareInWindow(s, loop.windowStartMs, loop.windowEndMs)
  const inWindow = (pick: (s: Sample) => number): number => succeeded.reduce((total, s) => total + pick(s) * share(s), 0)
  const ok = loop.measured.filter(s => s.error === undefined)
  const errors: Record<string, number> = {}
  const errorMessages: Record<string, string> = {}
  for (const sample of loop.measured) {
    if (sample.error === undefined) continue
    errors[sample.error] = (errors[sample.error] ?? 0) + 1
    if (sample.message !== undefined) errorMessages[sample.error] ??= sample.message
  }
  const audioSecondsPerSecond = inWindow(s => s.audioSeconds) / windowSeconds
  return {
    model,
    load,
    windowSeconds,
    requests: loop.measured.length,
    ok: ok.length,
    errors,
    errorMessages,
    requestsPerSecond: completed.length / windowSeconds,
    audioSecondsPerSecond,
    charactersPerSecond: inWindow(s => s.characters) / windowSeconds,
    bytesPerSecond: inWindow(s => s.bytes) / windowSeconds,
    ceilingFraction: ceiling === null || ceiling <= 0 ? null : audioSecondsPerSecond / ceiling,
    latencyMs: percentiles(ok.map(s => s.latencyMs)),
    ttfbMs: percentiles(ok.flatMap(s => s.ttfbMs === null ? [] : [s.ttfbMs])),
    realTimeFactor: percentiles(ok.flatMap(s => s.audioSeconds > 0 ? [s.latencyMs / 1000 / s.audioSeconds] : [])),
    sendLagMs: model === 'open' ? percentiles(loop.measured.map(s => s.sentMs - s.scheduledMs)) : null,
    server
  }
}

/** The share (0 to 1) of a request's time in flight that lies inside [startMs, endMs]. */
export function shareInWindow (sample: Pick<Sample, 'sentMs' | 'endMs'>, startMs: number, endMs: number): number {
  const flight = sample.endMs - sample.sentMs
  if (flight <= 0) return sample.endMs >= startMs && sample.endMs <= endMs ? 1 : 0
  const overlap = Math.min(sample.endMs, endMs) - Math.max(sample.sentMs, startMs)
  return Math.min(1, Math.max(0, overlap / flight))
}

/** "c=4" for a closed loop, "2.50/s" for an open one. */
export function levelLabel (level: Pick<LevelResult, 'model' | 'load'>): string {
  return level.model === 'closed' ? `c=${level.load}` : `${loadValue(level)}/s`
}

/** The load alone ("4", "2.50"), where an axis title says what it counts. */
export function loadValue (level: Pick<LevelResult, 'model' | 'load'>): string {
  const load = level.load
  if (level.model === 'closed') return String(load)
  return load >= 100 ? load.toFixed(0) : load >= 10 ? load.toFixed(1) : load.toFixed(2)
}
