// Loading a voice leaves the thread that loaded it no heavier than before:
// the model's graph is read and cut on a thread of its own that exits
// (src/engine/onnx/model-cutter.ts). Read in the voice's worker, its objects
// outlived the load in V8's old generation: a worker held 24.6 MB of heap
// after loading x_low, 8.7 MB with the cutter (7.6 MB for an empty worker).
// Judged against the model's own size: a thread that kept the graph's
// objects held most of it (17 MB of the 20.9 MB file).

import { statSync } from 'node:fs'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import t from 'tap'
import { unless } from '../helpers/test-tools.js'
import { BENCH_VOICES, NO_BENCH_VOICES } from '../helpers/voices.js'
import { figures, least, repeat, ROUNDS } from './figures.js'
import { testSourceUrl } from '../helpers/source-tree.js'

const MODEL = join(BENCH_VOICES, 'en_US-bench-x_low.onnx')

async function loadInThread (): Promise<{ grown: number, mode: string }> {
  // A voice worker's young generation, as the pools start them.
  const worker = new Worker(testSourceUrl('leak/fixtures/load-heap-worker.mjs'), { workerData: { modelPath: MODEL }, resourceLimits: { maxYoungGenerationSizeMb: 4 } })
  const result = await new Promise<{ before: number, after: number, mode: string }>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  await worker.terminate()
  return { grown: result.after - result.before, mode: result.mode }
}

t.test('the thread that loads a split voice keeps no heap from cutting it', unless(NO_BENCH_VOICES), async t => {
  const modelBytes = statSync(MODEL).size
  const modes: string[] = []
  // A collection that has not run yet only adds: the least reading is the thread's level.
  const grown = await repeat(ROUNDS, async () => {
    const { grown, mode } = await loadInThread()
    modes.push(mode)
    return grown
  })
  t.same(modes, modes.map(() => 'split'))
  figures(t, 'loading thread\'s heap growth', grown, 'MB')
  figures(t, 'the model file', [modelBytes], 'MB')
  t.ok(least(grown) < modelBytes * 0.1, `the loading thread kept under a tenth of the model's size (${(least(grown) / modelBytes * 100).toFixed(1)} %)`)
})
