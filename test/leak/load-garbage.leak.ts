// Loading a voice leaves the thread that loaded it no heavier than before:
// the model's graph is read and cut on a thread of its own that exits
// (src/engine/onnx/model-cutter.ts). Read in the voice's worker, its objects
// outlived the load in V8's old generation: a worker held 24.6 MB of heap
// after loading x_low, 8.7 MB with the cutter (7.6 MB for an empty worker).

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import t from 'tap'
import { BENCH_VOICES } from '../helpers/voices.js'

const MODEL = join(BENCH_VOICES, 'en_US-bench-x_low.onnx')
/** Growth allowed: the voice's own few objects (measured: under 1 MB). */
const ALLOWED_BYTES = 4e6

t.test('the thread that loads a split voice keeps no heap from cutting it', { skip: existsSync(MODEL) ? false : `no bench voices at ${BENCH_VOICES}` }, async t => {
  // A voice worker's young generation, as the pools start them.
  const worker = new Worker(new URL('./fixtures/load-heap-worker.mjs', import.meta.url), { workerData: { modelPath: MODEL }, resourceLimits: { maxYoungGenerationSizeMb: 4 } })
  const result = await new Promise<{ before: number, after: number, mode: string }>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  await worker.terminate()
  t.equal(result.mode, 'split')
  const grown = result.after - result.before
  t.ok(grown < ALLOWED_BYTES, `the loading thread's heap grew by ${(grown / 1e6).toFixed(1)} MB (at most ${ALLOWED_BYTES / 1e6} MB)`)
})
