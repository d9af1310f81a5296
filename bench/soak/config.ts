// `npm run soak` flags → one typed configuration, checked once. A bad flag is
// a ConfigError (exit code 2) in the project's message format.

import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ConfigError } from '../../src/errors.js'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import type { FlagValues } from '../../src/shared/config-values.js'
import { integer, number } from '../flags.js'

export interface SoakConfig {
  minutes: number
  /** TTS requests per second; null: `fraction` of the measured capacity. */
  rate: number | null
  fraction: number
  /** Tool cycles per second; null: `toolsFraction` of the measured capacity. */
  toolsRate: number | null
  toolsFraction: number
  voiceDir: string
  sampleSeconds: number
  seed: number
  outDir: string
}

export const SOAK_USAGE = `Usage: npm run soak -- [--minutes N] [flags]

Drives the TTS service (a child \`node dist/src/bin.cjs serve\` over the bench
voices; corpus texts, a voice mix, streaming on and off) and the tool server
(bot tree create/start/stop/delete cycles against the reference spawner, in a
second child) at a fixed fraction of their measured capacity; samples RSS and
event-loop delay; prints RSS drift after warm-up, errors and p99s.

  --minutes <n>          length of the run, after the capacity probes (default 30)
  --fraction <f>         TTS load as a share of its measured capacity (default 0.5)
  --rate <r>             TTS requests per second instead (no probe)
  --tools-fraction <f>   tool cycles as a share of their measured capacity (default 0.1)
  --tools-rate <r>       tool cycles per second instead (no probe)
  --voices <dir>         voice folder (default voices/bench: the generated stand-ins)
  --sample-seconds <s>   sampling period (default 5, or less for short runs)
  --seed <n>             corpus seed (default 1)
  --out <dir>            where the JSON results go (default bench-results)
`

const FLAGS = {
  minutes: { type: 'string' },
  fraction: { type: 'string' },
  rate: { type: 'string' },
  'tools-fraction': { type: 'string' },
  'tools-rate': { type: 'string' },
  voices: { type: 'string' },
  'sample-seconds': { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean' }
} as const

export function parseSoakConfig (argv: readonly string[]): SoakConfig | 'help' {
  let values: FlagValues
  try {
    // Node's own messages here: the shared kit's name a `chorus` command, and this is `npm run soak`.
    values = parseArgs({ args: [...argv], options: FLAGS, strict: true }).values
  } catch (error) {
    throw new ConfigError(`${(error as Error).message} (see --help)`)
  }
  if (values.help === true) return 'help'
  const minutes = number(values, 'minutes', 0.5, 24 * 60, 30)
  const seed = integer(values, 'seed', 0, 2 ** 32 - 1, 1)
  return {
    minutes,
    rate: number(values, 'rate', 0.01, 10_000, null),
    fraction: number(values, 'fraction', 0.01, 1, 0.5),
    toolsRate: number(values, 'tools-rate', 0.01, 10_000, null),
    toolsFraction: number(values, 'tools-fraction', 0.01, 1, 0.1),
    voiceDir: resolve(typeof values.voices === 'string' ? values.voices : resolve(PACKAGE_ROOT, 'voices/bench')),
    // At least a dozen samples however short the run.
    sampleSeconds: number(values, 'sample-seconds', 0.5, 600, null) ?? Math.min(5, minutes * 60 / 12),
    seed,
    outDir: resolve(typeof values.out === 'string' ? values.out : 'bench-results')
  }
}
