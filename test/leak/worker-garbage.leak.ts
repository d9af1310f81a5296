// A voice's worker keeps none of a sentence's arrays once it has handed them
// on: latents, their chunks and the samples are transferred or freed at once,
// not left for a garbage collection that a worker's few JS objects rarely
// bring (the service's RSS grew by ~260 KB a request that way).
//
// A worker's ArrayBuffer count includes what it made and handed to the main
// thread until the main thread collects it, so the main thread is collected
// first and the count is the worker's own. The main thread frees some of it
// only after its collection returns (V8 sweeps array buffers concurrently), so
// a single reading is sometimes ~0.5 MB high, never low: each level is the
// least of three readings, and what was kept is judged on the least level
// after several rounds. The baseline is the same run's own: the level after
// warming up, and the audio bytes of one of its sentences (keeping a
// sentence's latents alone would keep more than that, every sentence).

import { copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { collectGarbage } from '../../src/engine/memory/index.js'
import { postTts, startTestService } from '../helpers/service.js'
import { unless } from '../helpers/test-tools.js'
import { BENCH_VOICES, NO_BENCH_VOICES } from '../helpers/voices.js'
import { figures, least, median, repeat } from './figures.js'

const VOICE = 'en_US-bench-x_low'
const ROUNDS = 4
const SENTENCES_PER_ROUND = 10

t.test('streamed sentences with chunks leave no arrays behind in the worker', unless(NO_BENCH_VOICES), async t => {
  const service = await startTestService({ TTS_DEFAULT_VOICE: VOICE, TTS_WORKERS_PER_VOICE: '1', TTS_WORKER_IDLE_SECONDS: '0' }, [])
  t.teardown(() => service.stop())
  for (const file of [`${VOICE}.onnx`, `${VOICE}.onnx.json`]) await copyFile(join(BENCH_VOICES, file), join(service.voiceDir, file))
  for (let i = 0; i < 100; i++) {
    if ((await postTts(service.url, { text: 'Warm up.', voice: VOICE })).status === 200) break
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  const pool = service.deps.pools.loaded().get(VOICE)
  if (pool === undefined) throw new Error(`${VOICE} is not loaded`)
  const sentenceBytes: number[] = []
  const speak = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i++) {
      // Streamed: a small first chunk, then the rest as chunks handed between threads.
      const reply = await postTts(service.url, { text: `Sentence ${i} walks a long and winding road through the quiet hills and over the river to the sea`, voice: VOICE, stream: true })
      t.equal(reply.status, 200)
      sentenceBytes.push(reply.body.length)
    }
  }
  const level = async (): Promise<number> => {
    collectGarbage()
    let lowest = Infinity
    for (let i = 0; i < 3; i++) {
      lowest = Math.min(lowest, (await pool.probe()).arrayBuffers)
      await new Promise(resolve => setTimeout(resolve, 20))
    }
    return lowest
  }
  await speak(3)
  const baseline = await level()
  const levels = await repeat(ROUNDS, async () => {
    await speak(SENTENCES_PER_ROUND)
    return await level()
  })
  // Every level from the second round on has at least two rounds' sentences behind it.
  const kept = least(levels.slice(1)) - baseline
  const perSentence = kept / (2 * SENTENCES_PER_ROUND)
  const oneSentence = median(sentenceBytes)
  figures(t, 'worker ArrayBuffers, after warm-up then each round', [baseline, ...levels], 'MB')
  figures(t, 'one sentence\'s audio', [oneSentence], 'MB')
  t.ok(perSentence < oneSentence / 4, `the worker kept ${(perSentence / 1e3).toFixed(1)} KB a sentence, under a quarter of one sentence's audio (${(oneSentence / 1e3).toFixed(0)} KB)`)
})
