// A voice's worker keeps none of a sentence's arrays once it has handed them
// on: latents, their chunks and the samples are transferred or freed at once,
// not left for a garbage collection that a worker's few JS objects rarely
// bring (the service's RSS grew by ~260 KB a request that way).

import { existsSync } from 'node:fs'
import { copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { collectGarbage } from '../../src/pool/heap-sweep.js'
import { postTts, startTestService } from '../helpers/service.js'
import { BENCH_VOICES } from '../helpers/voices.js'

// A worker's ArrayBuffer count includes what it made and handed to the main
// thread until the main thread collects it, so the main thread is collected
// first and the count is the worker's own. The main thread frees some of it
// only after its collection returns (V8 sweeps array buffers concurrently), so
// a single reading is sometimes ~0.5 MB high, never low: the least of three
// readings is the worker's level.

const VOICE = 'en_US-bench-x_low'
const SENTENCES = 20
/** Growth allowed over the sentences: the small arrays of phonemes and ids.
 * Kept, the latents alone would be ~100 KB a sentence here, three times
 * that with their chunks' copies. */
const ALLOWED_BYTES = 0.5e6

t.test('streamed sentences with chunks leave no arrays behind in the worker', { skip: existsSync(join(BENCH_VOICES, `${VOICE}.onnx`)) ? false : `no bench voices at ${BENCH_VOICES}` }, async t => {
  const service = await startTestService({ TTS_DEFAULT_VOICE: VOICE, TTS_WORKERS_PER_VOICE: '1', TTS_WORKER_IDLE_SECONDS: '0' }, [])
  t.teardown(() => service.stop())
  for (const file of [`${VOICE}.onnx`, `${VOICE}.onnx.json`]) await copyFile(join(BENCH_VOICES, file), join(service.voiceDir, file))
  for (let i = 0; i < 100; i++) {
    if ((await postTts(service.url, { text: 'Warm up.', voice: VOICE })).status === 200) break
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  const pool = service.deps.pools.loaded().get(VOICE)
  if (pool === undefined) throw new Error(`${VOICE} is not loaded`)
  const speak = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      // Streamed: a small first chunk, then the rest as chunks handed between threads.
      const reply = await postTts(service.url, { text: `Sentence ${i} walks a long and winding road through the quiet hills and over the river to the sea`, voice: VOICE, stream: true })
      t.equal(reply.status, 200)
    }
  }
  const probe = async (): Promise<number> => {
    collectGarbage()
    let least = Infinity
    for (let i = 0; i < 3; i++) {
      least = Math.min(least, (await pool.probe()).arrayBuffers)
      await new Promise(resolve => setTimeout(resolve, 20))
    }
    return least
  }
  await speak(3)
  const before = await probe()
  await speak(SENTENCES)
  const after = await probe()
  t.ok(after - before < ALLOWED_BYTES, `the worker's ArrayBuffers grew by ${((after - before) / 1e6).toFixed(2)} MB over ${SENTENCES} sentences (at most ${ALLOWED_BYTES / 1e6} MB)`)
})
