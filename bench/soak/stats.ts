// What a soak concludes from its samples: the warm-up it skips, the drift of
// resident memory after it, and the worst event-loop delay. Pure functions,
// so the arithmetic is tested apart from any run.

import { median, quantile } from '../stats.js'

/** The first five minutes, or the first sixth of a shorter run. */
export function warmupSeconds (totalSeconds: number): number {
  return Math.min(300, totalSeconds / 6)
}

export interface Drift {
  /** Lower quartile of RSS over the first tenth of the samples after warm-up, in bytes. */
  baselineBytes: number
  /** Lower quartile over the last tenth, in bytes. */
  finalBytes: number
  /** (final − baseline) / baseline, in per cent. */
  percent: number
  /** The same with the two tenths' medians, in per cent. */
  medianPercent: number
  /** Least-squares slope over every sample after warm-up, in MB per minute. */
  slopeMbPerMinute: number
}

export interface RssSample {
  /** Seconds since the start of the run. */
  t: number
  bytes: number
}

/** Which quantile of each end's samples the drift compares. */
const DRIFT_QUANTILE = 0.25

/**
 * Drift of resident memory after warm-up: the lower quartile of the first
 * tenth of the samples after warm-up against that of the last tenth. Under a
 * fixed load the TTS service's RSS swings by 100 to 200 MB between a moment
 * with sentences in flight and one without (ONNX Runtime's arena gives their
 * activations back on every pause), so a tenth's median moves with how many of
 * its samples caught a burst: ±7 % between the tenths of one 30-minute run with
 * no trend in its resting level. The lower quartile reads that resting level,
 * which is where memory that creeps shows (+26 % and +31 % in two runs with
 * a real leak, +0.8 % after its fix). Undefined with fewer than two samples
 * after warm-up.
 */
export function rssDrift (samples: readonly RssSample[], warmup: number): Drift | undefined {
  const after = samples.filter((sample) => sample.t >= warmup)
  if (after.length < 2) return undefined
  const span = Math.max(1, Math.floor(after.length / 10))
  const first = after.slice(0, span).map((sample) => sample.bytes)
  const last = after.slice(-span).map((sample) => sample.bytes)
  const baselineBytes = quantile(first, DRIFT_QUANTILE)
  const finalBytes = quantile(last, DRIFT_QUANTILE)
  return {
    baselineBytes,
    finalBytes,
    percent: (finalBytes - baselineBytes) / baselineBytes * 100,
    medianPercent: (median(last) - median(first)) / median(first) * 100,
    slopeMbPerMinute: slope(after) * 60 / 1e6
  }
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
