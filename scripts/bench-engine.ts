// npm run bench:engine [-- --voice PATH --repeats N]
// Time per sentence of Chorus's full path (phonemize + ids + infer + PCM)
// against a bare onnxruntime-node session.run on the same ids with the same
// thread settings, interleaved in one run so machine noise hits both alike.
// Prints per-sentence medians and the median of the per-sentence ratios.

import * as ort from 'onnxruntime-node'
import { floatToPcm16, PiperVoice, resolveSynthesisConfig } from '../src/engine/index.js'
import { median } from '../bench/stats.js'
import { benchVoiceArgs } from './bench-voice-args.js'

const { voicePath, repeats } = await benchVoiceArgs(7)

const SENTENCES = [
  'Hello there!',
  'Sure, I can help with that.',
  'Welcome back to the workshop, how was your trip?',
  'The blue door on the left leads to the gallery.',
  'I will meet you by the fountain in five minutes.',
  'Could you tell me where the nearest teleport station is?',
  'That sounds like a great idea, let us try it.',
  'My favourite place in this region is the lighthouse at sunset.',
  'Please wait a moment while I check the schedule.',
  'No problem at all.',
  'The market opens at nine and closes when the last trader leaves.',
  'Thank you for visiting, and have a wonderful evening!',
  'I have three new builds to show you today.',
  'Watch out for the stairs, they are steeper than they look.',
  'Would you like a tour of the new library?',
  'Goodbye for now.',
  'Our next event starts in about twenty minutes, near the main stage.',
  'I am not sure, but I think the answer is forty two.',
  'Follow me, the path through the forest is a little tricky.',
  'It was lovely talking to you.'
]

const voice = await PiperVoice.load(voicePath)
// Deterministic output (no noise) so both paths do exactly the same work.
const settings = resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, voice.config)
const bare = await ort.InferenceSession.create(voicePath, {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all'
})

async function bareRun (ids: BigInt64Array): Promise<number> {
  const feeds = {
    input: new ort.Tensor('int64', ids, [1, ids.length]),
    input_lengths: new ort.Tensor('int64', BigInt64Array.of(BigInt(ids.length)), [1]),
    scales: new ort.Tensor('float32', Float32Array.of(settings.noiseScale, settings.lengthScale, settings.noiseW), [3])
  }
  const start = performance.now()
  await bare.run(feeds)
  return performance.now() - start
}

async function fullRun (text: string): Promise<number> {
  const start = performance.now()
  for (const phonemes of voice.phonemize(text)) {
    const { ids } = voice.phonemeIds(phonemes)
    floatToPcm16(await voice.infer(ids, settings))
  }
  return performance.now() - start
}

const idsOf = (text: string) => voice.phonemeIds(voice.phonemize(text)[0]).ids
// Warm both paths once.
await bareRun(idsOf(SENTENCES[0]))
await fullRun(SENTENCES[0])

console.log(`voice ${voice.name}, ${SENTENCES.length} sentences × ${repeats} repeats, 1 intra-op thread, ONNX Runtime ${ort.env.versions.common}`)
console.log('sentence                                            ids   bare ms   chorus ms   ratio')
const ratios: number[] = []
let bareTotal = 0
let fullTotal = 0
for (const text of SENTENCES) {
  const ids = idsOf(text)
  const bareTimes: number[] = []
  const fullTimes: number[] = []
  for (let r = 0; r < repeats; r++) {
    // Alternate the order so neither path always runs on a warmer cache.
    if (r % 2 === 0) {
      bareTimes.push(await bareRun(ids))
      fullTimes.push(await fullRun(text))
    } else {
      fullTimes.push(await fullRun(text))
      bareTimes.push(await bareRun(ids))
    }
  }
  const b = median(bareTimes)
  const f = median(fullTimes)
  bareTotal += b
  fullTotal += f
  ratios.push(f / b)
  console.log(`${text.slice(0, 50).padEnd(50)} ${String(ids.length).padStart(5)} ${b.toFixed(1).padStart(9)} ${f.toFixed(1).padStart(11)} ${(f / b).toFixed(3).padStart(7)}`)
}
console.log(`\nmedian ratio chorus / bare: ${median(ratios).toFixed(3)} (target ≤ 1.05); sum of medians ${fullTotal.toFixed(0)} ms vs ${bareTotal.toFixed(0)} ms`)
voice.close()
await bare.release()
