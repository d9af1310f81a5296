// What a voice's load holds, as the addon measures it (voice.memoryBytes:
// the growth of the process's heap across the load). A buffer that another
// thread frees meanwhile, V8 sweeping an earlier load's file for one, hides
// part of that growth and never adds to it: CI once saw 25.1 MB where the
// same load measures 30.9. So each figure is the largest of a few loads.

import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { PiperVoice, type LoadVoiceOptions } from '../../src/engine/index.js'
import { BENCH_VOICES } from './voices.js'

/** Copies of the bench x_low voice under other names: other files, so other
 * loads (a voice loaded twice from one file is one voice), of one
 * architecture. Removed when `t` ends. */
export async function benchCopies (t: Test, names: string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-copies-'))
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  const source = join(BENCH_VOICES, 'en_US-bench-x_low.onnx')
  return await Promise.all(names.map(async name => {
    const model = join(dir, `${name}.onnx`)
    await copyFile(source, model)
    await copyFile(`${source}.json`, `${model}.json`)
    return model
  }))
}

/** Loads each model in turn (closed when `t` ends) and returns the largest
 * memoryBytes among them. */
export async function largestLoad (t: Test, models: string[], options: LoadVoiceOptions = {}): Promise<number> {
  let largest = 0
  for (const model of models) {
    const voice = await PiperVoice.load(model, options)
    t.teardown(() => voice.close())
    largest = Math.max(largest, voice.memoryBytes)
  }
  return largest
}
