// What a soak concludes from its samples: the warm-up it skips, the drift of
// resident memory after it, and the worst event-loop delay. Pure functions,
// so the arithmetic is tested apart from any run.

import { median } from './stats.js'

/** The first five minutes, or the first sixth of a shorter run. */
export function warmupSeconds (totalSeconds: number): number {
  return Math.min(300, totalSeconds / 6)
}

export interface Drift {
  /** Median RSS over the first tenth of the samples after warm-up, in bytes. */
  baselineBytes: number
  /** Median RSS over the last tenth, in bytes. */
  finalBytes: number
  /** (final − baseline) / baseline, in per cent. */
  percent: number
  /** Least-squares slope over every sample after warm-up, in MB per minute. */
  slopeMbPerMinute: number
}

export interface RssSample {
  /** Seconds since the start of the run. */
  t: number
  bytes: number
}

/**
 * Drift of resident memory after warm-up. Medians over a tenth of the samples
 * at each end, so one garbage collection or one burst does not decide it.
 * Undefined with fewer than two samples after warm-up.
 */
export function rssDrift (samples: readonly RssSample[], warmup: number): Drift | undefined {
  const after = samples.filter((sample) => sample.t >= warmup)
  if (after.length < 2) return undefined
  const span = Math.max(1, Math.floor(after.length / 10))
  const baselineBytes = median(after.slice(0, span).map((sample) => sample.bytes))
  const finalBytes = median(after.slice(-span).map((sample) => sample.bytes))
  return { baselineBytes, finalBytes, percent: (finalBytes - baselineBytes) / baselineBytes * 100, slopeMbPerMinute: slope(after) * 60 / 1e6 }
}

/** Least-squares slope of bytes over seconds. */
function slope (samples: readonly RssSample[]): number {
  const n = samples.length
  const meanT = samples.reduce((sum, sample) => sum + sample.t, 0) / n
  const meanB = samples.reduce((sum, sample) => sum + sample.bytes, 0) / n
  let covariance = 0
  let variance = 0
  for (const sample of samples) {
    covariance += (sample.t - meanT) * (sample.bytes - meanB)
    variance += (sample.t - meanT) ** 2
  }
  return variance === 0 ? 0 : covariance / variance
}
