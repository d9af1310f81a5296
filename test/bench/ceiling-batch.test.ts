// EngineBench.batch: the engines run every sentence of a range of prepared
// texts exactly once, so `bench targets` can give the ceiling and the service
// the same texts. Counts, not times.

import { join } from 'node:path'
import t from 'tap'
import { EngineBench } from '../../bench/ceiling.js'
import { testVoiceDir } from '../helpers/voices.js'

const voice = 'en_US-vits-medium'
const voices = [{ name: voice, modelPath: join(await testVoiceDir(), `${voice}.onnx`) }]
const TEXTS = ['One. Two. Three.', 'A single sentence here.', 'Four. Five.', 'Six, seven. Eight.']

t.test('a batch runs each sentence of its range once, on every engine, however often it is repeated', async t => {
  const chorus = await EngineBench.start({ voices, synthesis: { noiseW: 0 }, workers: 2 })
  t.teardown(async () => await chorus.close())
  const counts = await chorus.prepare(TEXTS.map(text => ({ voice, text })))
  t.same(counts, [3, 1, 2, 2])
  const outside = await EngineBench.start({ voices, synthesis: { noiseW: 0 }, workers: 2, engine: 'onnxruntime' })
  t.teardown(async () => await outside.close())
  await outside.prepareLike(chorus)
  const split = await EngineBench.start({ voices, synthesis: { noiseW: 0 }, workers: 2, engine: 'chorus-split' })
  t.teardown(async () => await split.close())
  await split.prepareLike(chorus)
  const audio: number[] = []
  for (const bench of [chorus, outside, split]) {
    const first = await bench.batch({ first: 1, count: 3 })
    const again = await bench.batch({ first: 1, count: 3 })
    t.equal(first.sentences, 5, 'texts 1 to 3 hold 5 sentences')
    t.equal(again.sentences, 5, 'the counter starts again for each batch')
    t.ok(first.audioSeconds > 0 && Math.abs(first.audioSeconds - again.audioSeconds) < 1e-9, 'the same sentences (noise_w 0: the same lengths), so the same audio')
    audio.push(first.audioSeconds)
    // A timed run shares the counter; the batch after it still starts at 0.
    await bench.throughput(50, { first: 0, count: 4 })
    t.equal((await bench.batch({ first: 0, count: 1 })).sentences, 3)
  }
  t.same(audio.map(a => a.toFixed(6)), Array(3).fill(audio[0].toFixed(6)), 'whole, split or onnxruntime-node: the same ids make the same audio')
})
