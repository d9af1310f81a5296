// Copies of a bench stand-in, for tests that load one architecture under
// several names (test/leak/encoder-memory.leak.ts compares what their loads
// hold; the engine tests compare their audio).

import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
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
