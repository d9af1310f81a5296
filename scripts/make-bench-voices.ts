// Generates the bench stand-ins: Piper VITS voices with the real
// architecture, sizes and ONNX export of each quality, and random weights
// (they speak noise), paired with real Piper configs from
// test/fixtures/configs. Benchmarks and the engine's tests use them, so
// their cost per second of audio and their output length per phoneme are
// those of real voices. Skipped when the folder is already up to date.
//   tsx scripts/make-bench-voices.ts [outDir]   (default voices/bench)

import { createHash } from 'node:crypto'
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import type { Quality } from './lib/piper-vits/hparams.js'
import { buildStandInVoice } from './lib/piper-vits/model.js'
import { PACKAGE_ROOT } from '../src/package-root.js'

// From the package root, not this file's URL: the tests also run this compiled, from dist/scripts.
const root = PACKAGE_ROOT
const configs = join(root, 'test/fixtures/configs')

export const DEFAULT_BENCH_DIR = join(root, 'voices/bench')

export interface BenchVoice {
  name: string
  /** The real voice whose config (phoneme map, defaults) it takes. */
  config: string
  quality: Quality
  speakers: number
  sampleRate: number
  /** The duration predictor's shift: about 14 characters of English per
   * second of audio at the config's length_scale (1 for lessac, 1.4 for vctk)
   * and sample rate (x_low's 16 kHz makes each 256-sample frame longer). */
  durationShift: number
  seed: number
}

export const STAND_INS: BenchVoice[] = [
  { name: 'en_US-bench-medium', config: 'en_US-lessac-medium', quality: 'medium', speakers: 1, sampleRate: 22050, durationShift: -0.5, seed: 1 },
  { name: 'en_US-bench-x_low', config: 'en_US-lessac-medium', quality: 'x_low', speakers: 1, sampleRate: 16000, durationShift: -0.13, seed: 2 },
  { name: 'en_GB-benchmulti-medium', config: 'en_GB-vctk-medium', quality: 'medium', speakers: 109, sampleRate: 22050, durationShift: -0.59, seed: 3 }
]

/** The files whose contents decide the voices' bytes: a change to any of them regenerates. */
async function generatorSources (): Promise<string[]> {
  const lib = join(root, 'scripts/lib')
  const vits = join(lib, 'piper-vits')
  return [
    join(root, 'scripts/make-bench-voices.ts'),
    join(lib, 'graph-builder.ts'),
    join(lib, 'onnx-writer.ts'),
    join(lib, 'protobuf-writer.ts'),
    ...(await readdir(vits)).filter(f => f.endsWith('.ts')).sort().map(f => join(vits, f)),
    ...STAND_INS.map(v => join(configs, `${v.config}.onnx.json`))
  ]
}

/** A hash of the generator's sources, stored beside the voices. */
export async function generatorStamp (): Promise<string> {
  const hash = createHash('sha256')
  for (const file of await generatorSources()) hash.update(file.slice(root.length)).update(await readFile(file))
  return hash.digest('hex')
}

export function benchConfig (voice: BenchVoice, realConfig: string): string {
  const config = JSON.parse(realConfig) as Record<string, unknown> & { audio: Record<string, unknown> }
  if (voice.quality !== 'medium' || voice.sampleRate !== config.audio.sample_rate) {
    config.audio = { ...config.audio, sample_rate: voice.sampleRate, quality: voice.quality }
  }
  config.dataset = voice.name
  config._stand_in = 'random weights, Piper architecture; produces noise, not speech'
  return `${JSON.stringify(config, null, 2)}\n`
}

/** One voice's model; `shrink` divides its widths (a small copy for tests). */
export function buildBenchModel (voice: BenchVoice, shrink = 1): Uint8Array {
  return buildStandInVoice({ quality: voice.quality, speakers: voice.speakers, durationShift: voice.durationShift, seed: voice.seed, shrink })
}

async function writeAtomically (path: string, data: Uint8Array | string): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`
  await writeFile(temporary, data)
  await rename(temporary, path)
}

const STAMP = '.stamp.json'

async function upToDate (outDir: string, stamp: string): Promise<boolean> {
  try {
    const saved = JSON.parse(await readFile(join(outDir, STAMP), 'utf8')) as { stamp?: string, sizes?: Record<string, number> }
    if (saved.stamp !== stamp || saved.sizes === undefined) return false
    for (const [file, size] of Object.entries(saved.sizes)) if ((await stat(join(outDir, file))).size !== size) return false
    return true
  } catch {
    return false
  }
}

/** Writes every voice and then the stamp (so the stamp never vouches for a half-written folder). */
export async function makeBenchVoices (outDir = DEFAULT_BENCH_DIR): Promise<string> {
  await mkdir(outDir, { recursive: true })
  const stamp = await generatorStamp()
  const sizes: Record<string, number> = {}
  for (const voice of STAND_INS) {
    const model = buildBenchModel(voice)
    const config = benchConfig(voice, await readFile(join(configs, `${voice.config}.onnx.json`), 'utf8'))
    await writeAtomically(join(outDir, `${voice.name}.onnx`), model)
    await writeAtomically(join(outDir, `${voice.name}.onnx.json`), config)
    sizes[`${voice.name}.onnx`] = model.length
    sizes[`${voice.name}.onnx.json`] = Buffer.byteLength(config)
  }
  await writeAtomically(join(outDir, STAMP), `${JSON.stringify({ stamp, sizes }, null, 2)}\n`)
  return outDir
}

/** A lock older than this is from a process that died while generating. */
const STALE_LOCK_MS = 120_000

/** Makes the voices unless they are there and up to date. Processes that
 * call it at once (parallel test files) generate them once: one takes the
 * lock, the others wait for its stamp. */
export async function ensureBenchVoices (outDir = DEFAULT_BENCH_DIR): Promise<string> {
  const stamp = await generatorStamp()
  if (await upToDate(outDir, stamp)) return outDir
  await mkdir(outDir, { recursive: true })
  const lock = join(outDir, '.lock')
  for (;;) {
    try {
      await mkdir(lock)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      if (await upToDate(outDir, stamp)) return outDir
      const age = Date.now() - (await stat(lock).catch(() => ({ mtimeMs: Date.now() }))).mtimeMs
      if (age > STALE_LOCK_MS) await rm(lock, { recursive: true, force: true })
      else await sleep(250)
    }
  }
  try {
    if (!await upToDate(outDir, stamp)) await makeBenchVoices(outDir)
  } finally {
    await rm(lock, { recursive: true, force: true })
  }
  return outDir
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now()
  const out = await ensureBenchVoices(process.argv[2] !== undefined ? resolve(process.argv[2]) : undefined)
  console.log(`bench voices in ${out} (${((performance.now() - started) / 1000).toFixed(1)} s)`)
}
