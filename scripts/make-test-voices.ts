// Generates the test voices: probe models (see scripts/lib/probe-model.ts)
// paired with real Piper configs from test/fixtures/configs.
//   tsx scripts/make-test-voices.ts [outDir]   (default test/fixtures/generated/voices)

import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildForeignModel, buildProbeModel, type ProbeOptions } from './lib/probe-model.js'
import { buildVitsLikeModel } from './lib/vits-model.js'
import { PACKAGE_ROOT } from '../src/package-root.js'

// From the package root, not this file's URL: the tests also run this compiled, from dist/scripts.
const root = PACKAGE_ROOT
const configs = join(root, 'test/fixtures/configs')

export interface TestVoice {
  name: string
  config: string
  /** A probe model (runs whole), or a VITS-shaped one (runs split). */
  probe?: ProbeOptions
  vits?: { speakerInput: boolean }
}

/** Cancellation tests need a run that lasts long enough to be caught. */
export const SLOW_MATMULS = 300

export const TEST_VOICES: TestVoice[] = [
  { name: 'en_US-probe-medium', config: 'en_US-lessac-medium', probe: { speakerInput: false } },
  { name: 'en_US-proberyan-medium', config: 'en_US-ryan-medium', probe: { speakerInput: false } },
  { name: 'en_GB-probemulti-medium', config: 'en_GB-vctk-medium', probe: { speakerInput: true } },
  { name: 'pt_BR-probe-medium', config: 'pt_BR-cadu-medium', probe: { speakerInput: false } },
  { name: 'en_US-probeslow-medium', config: 'en_US-lessac-medium', probe: { speakerInput: false, slowMatmuls: SLOW_MATMULS } },
  { name: 'en_US-vits-medium', config: 'en_US-lessac-medium', vits: { speakerInput: false } },
  { name: 'en_GB-vitsmulti-medium', config: 'en_GB-vctk-medium', vits: { speakerInput: true } }
]

export const DEFAULT_OUT_DIR = join(root, 'test/fixtures/generated/voices')

/** Leaves a file that already holds these bytes alone: test files running
 * in parallel each call this, and a rename would give a model another inode
 * and mtime under a test that has it loaded (its load key would change). */
async function writeAtomically (path: string, data: Uint8Array | string): Promise<void> {
  const existing = await readFile(path).catch(() => undefined)
  if (existing !== undefined && existing.equals(typeof data === 'string' ? Buffer.from(data) : data)) return
  const temporary = `${path}.tmp-${process.pid}`
  await writeFile(temporary, data)
  await rename(temporary, path)
}

export async function makeTestVoices (outDir = DEFAULT_OUT_DIR): Promise<string> {
  await mkdir(outDir, { recursive: true })
  for (const voice of TEST_VOICES) {
    const config = await readFile(join(configs, `${voice.config}.onnx.json`))
    const model = voice.vits !== undefined ? buildVitsLikeModel(voice.vits) : buildProbeModel(voice.probe ?? { speakerInput: false })
    await writeAtomically(join(outDir, `${voice.name}.onnx`), model)
    await writeAtomically(join(outDir, `${voice.name}.onnx.json`), config)
  }
  const foreign = join(outDir, 'foreign')
  await mkdir(foreign, { recursive: true })
  await writeAtomically(join(foreign, 'en_US-foreign-medium.onnx'), buildForeignModel())
  await writeAtomically(join(foreign, 'en_US-foreign-medium.onnx.json'),
    await readFile(join(configs, 'en_US-lessac-medium.onnx.json')))
  return outDir
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await makeTestVoices(process.argv[2] !== undefined ? resolve(process.argv[2]) : undefined)
  console.log(`test voices written to ${out}`)
}
