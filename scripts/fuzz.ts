// npm run fuzz [-- --runs N --seed S]
// The property-based tests of `npm test` with N runs per property instead of
// their bounded counts: HTTP bodies and headers for /tts and /v1/tts, texts
// through the phonemizer, JSON-RPC messages for /mcp. A failure prints
// fast-check's counterexample and seed; --seed S replays it.

import { spawn } from 'node:child_process'
import { parseArgs } from 'node:util'
import { PACKAGE_ROOT } from '../src/package-root.js'

const FILES = ['test/http/fuzz-http.test.ts', 'test/openai/fuzz-speech.test.ts', 'test/engine/fuzz-phonemize.test.ts', 'test/tools/fuzz-mcp.test.ts']

const { values: flags } = parseArgs({ options: { runs: { type: 'string', default: '2000' }, seed: { type: 'string' } } })

function positiveInteger (value: string | undefined, flag: string, allowZero = false): number | undefined {
  if (value === undefined) return undefined
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(parsed) || (!allowZero && parsed < 1)) {
    console.error(`Expected a positive integer for ${flag} but received ${JSON.stringify(value)} (string)`)
    process.exit(2)
  }
  return parsed
}

const runs = positiveInteger(flags.runs, '--runs') as number
const seed = positiveInteger(flags.seed, '--seed', true)
console.log(`fuzz: ${runs} runs per property${seed === undefined ? '' : `, seed ${seed}`}: ${FILES.join(', ')}`)
const env = { ...process.env, CHORUS_FUZZ_RUNS: String(runs), ...(seed === undefined ? {} : { CHORUS_FUZZ_SEED: String(seed) }) }
// No per-file timeout: a long run is the point; each request still has its own.
const child = spawn('npx', ['tap', '--timeout=0', ...FILES], { cwd: PACKAGE_ROOT, env, stdio: 'inherit' })
child.on('exit', (code, signal) => { process.exit(code ?? (signal === null ? 1 : 128)) })
