// Percentiles for the harness, on the same interpolation as the project's
// other benchmark scripts so their figures compare.

import { median, quantile } from '../../scripts/lib/stats.js'

export { median, quantile }

export interface Percentiles {
  p50: number
  p90: number
  p99: number
  max: number
  mean: number
}

/** p50/p90/p99/max/mean, or null when there are no values (JSON has no NaN). */
export function percentiles (values: readonly number[]): Percentiles | null {
  if (values.length === 0) return null
  let sum = 0
  for (const value of values) sum += value
  return {
    p50: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    p99: quantile(values, 0.99),
    max: quantile(values, 1),
    mean: sum / values.length
  }
}
