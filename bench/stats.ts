// Percentiles for the harness and the benchmark scripts (scripts/ imports
// this file, never the other way round), on one interpolation so their
// figures compare.

export function median (values: readonly number[]): number {
  return quantile(values, 0.5)
}

/** Linear-interpolated quantile (q in [0, 1]) of unsorted values; NaN when there are none. */
export function quantile (values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * q
  const low = Math.floor(position)
  const high = Math.ceil(position)
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low)
}

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
