// The voices of npm run scale:test: eight Piper-architecture stand-ins
// (random weights, the x_low export's graph at a quarter of its widths),
// each its own voice (its own seed), with the x_low bench voice's config and
// duration predictor shift, so each answer is as long as a real voice's
// answer to the same text; about 2 MB each. Skipped when the folder holds them.
//   tsx scripts/make-scale-voices.ts OUT_DIR

import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { benchConfig, buildBenchModel, STAND_INS } from './make-bench-voices.js'
import { PACKAGE_ROOT } from '../src/package-root.js'

// From the package root, not this file's URL: the tests also run this compiled, from dist/scripts.
const root = PACKAGE_ROOT
export const SCALE_VOICE_COUNT = 8
/** Widths divided by this: small files, the same graph and output lengths. */
const SHRINK = 4

export const scaleVoiceNames = (): string[] => Array.from({ length: SCALE_VOICE_COUNT }, (_, i) => `en_US-scale${i + 1}-x_low`)

async function exists (path: string): Promise<boolean> {
  return await stat(path).then(() => true, () => false)
}

export async function makeScaleVoices (outDir: string): Promise<string[]> {
  const base = STAND_INS.find(voice => voice.quality === 'x_low')
  if (base === undefined) throw new Error('make-bench-voices.ts has no x_low stand-in to follow')
  await mkdir(outDir, { recursive: true })
  const realConfig = await readFile(join(root, 'test/fixtures/configs', `${base.config}.onnx.json`), 'utf8')
  const names = scaleVoiceNames()
  for (const [index, name] of names.entries()) {
    const model = join(outDir, `${name}.onnx`)
    if (await exists(model) && await exists(`${model}.json`)) continue
    const voice = { ...base, name, seed: 100 + index }
    await writeFile(`${model}.json`, benchConfig(voice, realConfig))
    await writeFile(model, buildBenchModel(voice, SHRINK))
  }
  return names
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2]
  if (outDir === undefined) throw new Error('usage: tsx scripts/make-scale-voices.ts OUT_DIR')
  console.log((await makeScaleVoices(resolve(outDir))).join('\n'))
}
