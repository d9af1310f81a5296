// Copies of a bench stand-in, for tests that load one architecture under
// several names (test/leak/encoder-memory.leak.ts compares what their loads
// hold; the engine tests compare their audio).

import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { buildBenchModel, STAND_INS } from '../../scripts/make-bench-voices.js'
import { BENCH_VOICES } from './voices.js'

const X_LOW = 'en_US-bench-x_low'

/** Copies of the bench x_low voice under other names: other files, so other
 * loads (a voice loaded twice from one file is one voice), of one
 * architecture. With `shrink`, the same graph with its widths divided by it
 * (as quick to run as the tests that only compare audio need). Removed when
 * `t` ends. */
export async function benchCopies (t: Test, names: string[], options: { shrink?: number } = {}): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-copies-'))
  t.teardown(async () => await rm(dir, { recursive: true, force: true }))
  const source = join(BENCH_VOICES, `${X_LOW}.onnx`)
  const voice = STAND_INS.find(v => v.name === X_LOW)
  if (voice === undefined) throw new Error(`no stand-in named ${X_LOW}`)
  const shrunk = options.shrink === undefined ? undefined : buildBenchModel(voice, options.shrink)
  return await Promise.all(names.map(async name => {
    const model = join(dir, `${name}.onnx`)
    if (shrunk === undefined) await copyFile(source, model)
    else await writeFile(model, shrunk)
    await copyFile(`${source}.json`, `${model}.json`)
    return model
  }))
}
