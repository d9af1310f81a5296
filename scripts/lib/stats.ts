// Small statistics for benchmark scripts.

export function median (values: readonly number[]): number {
  return quantile(values, 0.5)
}

/** Linear-interpolated quantile (q in [0, 1]) of unsorted values. */
export function quantile (values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * q
  const low = Math.floor(position)
  const high = Math.ceil(position)
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low)
}
