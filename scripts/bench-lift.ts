// npm run bench:lift [-- --voice PATH --repeats N]
// What running a split voice's 1-D convolutions as 2-D ones of height 1
// (src/engine/onnx/conv-lift.ts, TTS_ONNX_LIFT_CONV) does to its cost: the
// voice at the staged cut as exported and lifted, loaded in one process and
// run in alternation on one intra-op thread each, at noise 0, for a short, a
// conversational and a 45-word sentence. Per run: the encoder, then the
// flow and decoder over the whole sentence in one chunk. Prints medians, the
// lifted/exported ratio and the largest sample difference between the two.

import { DEFAULT_CHUNKING, PiperVoice, resolveSynthesisConfig } from '../src/engine/index.js'
import { median } from '../bench/stats.js'
import { benchVoiceArgs } from './bench-voice-args.js'
import { ENGINE_SENTENCES } from './lib/engine-sentences.js'
import { maxDifference } from './lib/sample-difference.js'

const { voicePath, repeats } = await benchVoiceArgs(7)

/** More frames than any sentence here: the whole sentence in one chunk. */
const ONE_CHUNK = 4096

async function load (lift: boolean): Promise<PiperVoice> {
  const voice = await PiperVoice.load(voicePath, { cut: 'staged', session: { intraOpThreads: 1, encoderIntraOpThreads: 1, liftConvolutions: lift } })
  if (voice.mode.mode !== 'split' || voice.mode.cut !== 'staged') {
    console.error(`${voicePath} cannot be loaded at the staged cut (${voice.mode.reason ?? voice.mode.mode})`)
    process.exit(2)
  }
  return voice
}

const variants = [{ name: 'exported', voice: await load(false) }, { name: 'lifted', voice: await load(true) }]
const settings = resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, variants[0].voice.config)

interface Run { encodeMs: number, decodeMs: number, samples: Float32Array }

async function run (voice: PiperVoice, text: string): Promise<Run> {
  const { ids } = voice.phonemeIds(voice.phonemize(text)[0])
  const margin = voice.marginFrames(DEFAULT_CHUNKING)
  const start = performance.now()
  const encoding = await voice.encode(ids, settings)
  const encoded = performance.now()
  const samples = await voice.decodeChunk(encoding, { start: 0, end: Math.min(ONE_CHUNK, encoding.frames) }, margin)
  return { encodeMs: encoded - start, decodeMs: performance.now() - encoded, samples }
}

for (const { voice } of variants) await run(voice, ENGINE_SENTENCES[0][1])
console.log(`${voicePath}, staged cut, one intra-op thread, ${repeats} alternated runs each (medians, ms)`)
console.log('sentence        | encoder exported | encoder lifted | flow+decoder exported | flow+decoder lifted | lifted/exported | max sample difference')
for (const [label, text] of ENGINE_SENTENCES) {
  const times = variants.map(() => ({ encode: [] as number[], decode: [] as number[] }))
  let difference = 0
  for (let r = 0; r < repeats; r++) {
    // Alternate which goes first, so neither always runs on a warmer cache.
    const order = r % 2 === 0 ? [0, 1] : [1, 0]
    const runs: Run[] = []
    for (const i of order) {
      const result = await run(variants[i].voice, text)
      times[i].encode.push(result.encodeMs)
      times[i].decode.push(result.decodeMs)
      runs[i] = result
    }
    difference = Math.max(difference, maxDifference(runs[0].samples, runs[1].samples))
  }
  const [exported, lifted] = times.map(t => ({ encode: median(t.encode), decode: median(t.decode) }))
  const ratio = (lifted.encode + lifted.decode) / (exported.encode + exported.decode)
  console.log(`${label.padEnd(15)} | ${exported.encode.toFixed(0).padStart(16)} | ${lifted.encode.toFixed(0).padStart(14)} | ` +
    `${exported.decode.toFixed(0).padStart(21)} | ${lifted.decode.toFixed(0).padStart(19)} | ${ratio.toFixed(3).padStart(15)} | ${difference.toExponential(1)}`)
}
for (const { voice } of variants) voice.close()
