// How many runs each property gets. `npm test` uses the counts written in
// the tests; `npm run fuzz -- --runs N` (scripts/fuzz.ts) sets the
// CHORUS_FUZZ_RUNS and CHORUS_FUZZ_SEED variables for a longer run.

import type { Parameters } from 'fast-check'

/** fast-check parameters: `defaultRuns`, or the fuzz script's count times `share`. */
export function fuzzParameters (defaultRuns: number, share = 1): Parameters<unknown> {
  const override = Number(process.env.CHORUS_FUZZ_RUNS)
  const seed = Number(process.env.CHORUS_FUZZ_SEED)
  const numRuns = Number.isSafeInteger(override) && override > 0 ? Math.max(1, Math.round(override * share)) : defaultRuns
  return Number.isSafeInteger(seed) ? { numRuns, seed } : { numRuns }
}
