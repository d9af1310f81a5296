// The addon is context-aware: several worker threads load it at once, each
// phonemizing and synthesising concurrently, and every result is checked.

import { Worker } from 'node:worker_threads'
import t from 'tap'
import { workerStartOptions } from '../../src/worker-start-options.js'
import { testVoiceDir } from '../helpers/voices.js'
import { testSourceUrl } from '../helpers/source-tree.js'

const WORKERS = 4
const ROUNDS = 25

t.test(`${WORKERS} worker threads phonemize and synthesise concurrently`, async t => {
  const voiceDir = await testVoiceDir()
  const bootstrap = testSourceUrl('helpers/ts-worker.mjs')
  const entry = testSourceUrl('helpers/engine-worker.ts').href
  const results = await Promise.all(Array.from({ length: WORKERS }, (_, index) =>
    new Promise<{ checked: number, failures: string[] }>((resolve, reject) => {
      const thread = new Worker(bootstrap, { workerData: { entry, voiceDir, index, rounds: ROUNDS }, ...workerStartOptions() })
      thread.once('message', resolve)
      thread.once('error', reject)
      thread.once('exit', code => { if (code !== 0) reject(new Error(`worker ${index} exited with ${code}`)) })
    })))
  for (const [index, result] of results.entries()) {
    t.same(result.failures, [], `worker ${index} saw no wrong result`)
    t.equal(result.checked, ROUNDS * 2, `worker ${index} checked every result`)
  }
})
