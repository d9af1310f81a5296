// npm run bench:cuts [-- --voice PATH --repeats N]
// What each cut of a split voice puts on the serial path of a streamed
// sentence: the encoder run (at the decoder cut it holds the flow over the
// whole sentence), the first 32-frame chunk with its margin, and the whole
// decode per frame, for a short, a conversational and a 45-word sentence.
// The three cuts are loaded in one process and run in rotation, one
// intra-op thread each, at noise 0 so all make the same frames. At the staged
// cut the first chunk's time holds the flow over its window, and the whole
// decode the flow over the sentence.

import { DEFAULT_CHUNKING, PiperVoice, resolveSynthesisConfig, type SentenceEncoding } from '../src/engine/index.js'
import { median } from '../bench/stats.js'
import { benchVoiceArgs } from './bench-voice-args.js'
import { ENGINE_SENTENCES } from './lib/engine-sentences.js'

const { voicePath, repeats } = await benchVoiceArgs(7)

const FIRST_CHUNK = DEFAULT_CHUNKING.firstChunkFrames

const session = { intraOpThreads: 1, encoderIntraOpThreads: 1 }
const cuts = [
  { name: 'decoder', voice: await PiperVoice.load(voicePath, { cut: 'decoder', session }) },
  { name: 'flow', voice: await PiperVoice.load(voicePath, { cut: 'flow', session }) },
  { name: 'staged', voice: await PiperVoice.load(voicePath, { cut: 'staged', session }) }
]
for (const { name, voice } of cuts) {
  if (voice.mode.cut !== name) {
    console.error(`${voicePath} cannot be loaded at the ${name} cut (${voice.mode.reason ?? voice.mode.mode})`)
    process.exit(2)
  }
}
const settings = resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, cuts[0].voice.config)

interface Times { encodeMs: number, firstMs: number, wholeMs: number, frames: number }

async function timed<T> (work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now()
  const result = await work()
  return [result, performance.now() - start]
}

async function measure (voice: PiperVoice, text: string): Promise<Times> {
  const { ids } = voice.phonemeIds(voice.phonemize(text)[0])
  const margin = voice.marginFrames(DEFAULT_CHUNKING)
  const [encoding, encodeMs] = await timed<SentenceEncoding>(async () => await voice.encode(ids, settings))
  const first = { start: 0, end: Math.min(FIRST_CHUNK, encoding.frames) }
  const [, firstMs] = await timed(async () => await voice.decodeChunk(encoding, first, margin))
  const [, wholeMs] = await timed(async () => await voice.decodeChunk(encoding, { start: 0, end: encoding.frames }, margin))
  return { encodeMs, firstMs, wholeMs, frames: encoding.frames }
}

// Warm each.
for (const { voice } of cuts) await measure(voice, ENGINE_SENTENCES[0][1])

console.log(`voice ${cuts[0].voice.name}, ${repeats} repeats in rotation, 1 intra-op thread, noise 0, first chunk ${FIRST_CHUNK} frames`)
console.log('sentence         frames  cut       encoder ms  first chunk ms  to first audio ms  whole decode ms/frame')
for (const [label, text] of ENGINE_SENTENCES) {
  const times = new Map(cuts.map(c => [c.name, [] as Times[]]))
  for (let r = 0; r < repeats; r++) {
    const order = [...cuts.slice(r % cuts.length), ...cuts.slice(0, r % cuts.length)]
    for (const { name, voice } of order) times.get(name)?.push(await measure(voice, text))
  }
  for (const { name } of cuts) {
    const runs = times.get(name) ?? []
    const encodeMs = median(runs.map(t => t.encodeMs))
    const firstMs = median(runs.map(t => t.firstMs))
    const perFrame = median(runs.map(t => t.wholeMs / t.frames))
    console.log(`${label.padEnd(16)} ${String(runs[0].frames).padStart(6)}  ${name.padEnd(8)} ${encodeMs.toFixed(1).padStart(11)} ${firstMs.toFixed(1).padStart(15)} ${(encodeMs + firstMs).toFixed(1).padStart(18)} ${perFrame.toFixed(3).padStart(22)}`)
  }
}
for (const { voice } of cuts) voice.close()
