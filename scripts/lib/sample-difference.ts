// How far apart two runs' samples are, for the engine's tests and benches
// that compare a rewritten graph with the one as exported.

/** The largest difference between two runs' samples; Infinity when their lengths differ. */
export function maxDifference (a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Infinity
  let max = 0
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]))
  return max
}
