// What a streamed sentence's first chunk costs, part by part, on the bench
// medium stand-in (scripts/bench-first-audio.ts): CPU time of one thread,
// so the figures hold on a busy machine. The encoder's parts come from the
// stand-in built up to the text encoder's outputs and up to the duration
// predictor's (the same weights: the builder draws them in order), each with
// its attention banded as the engine loads it, against the whole encoder as
// the staged cut makes it; all three run in bare onnxruntime-node. The flow
// window and the first decoder chunk come from the engine itself.

import * as ort from 'onnxruntime-node'
import { median } from '../../bench/stats.js'
import { DEFAULT_CHUNKING, PiperVoice, planChunks, resolveSynthesisConfig } from '../../src/engine/index.js'
import { splitDecoder } from '../../src/engine/onnx/decoder-split.js'
import { bandAttention } from '../../src/engine/onnx/relative-attention.js'
import { STAND_INS } from '../make-bench-voices.js'
import { buildStandInVoice } from './piper-vits/model.js'

const cpuMs = (): number => {
  const used = process.cpuUsage()
  return (used.user + used.system) / 1000
}

async function cpuOf (work: () => Promise<unknown>): Promise<number> {
  const start = cpuMs()
  await work()
  return cpuMs() - start
}

/** The three encoder models: text encoder, + duration predictor, the whole encoder (staged cut). */
function encoderParts (encoder: Uint8Array): Uint8Array[] {
  const medium = STAND_INS.find(v => v.name === 'en_US-bench-medium')
  if (medium === undefined) throw new Error('no bench medium stand-in')
  const options = { quality: medium.quality, speakers: medium.speakers, durationShift: medium.durationShift, seed: medium.seed }
  return [buildStandInVoice({ ...options, stopAt: 'text' }), buildStandInVoice({ ...options, stopAt: 'durations' }), encoder].map(m => bandAttention(m).bytes)
}

interface Parts { phonemize: number, text: number, durations: number, prior: number, flow: number, decoder: number, engine: number }

/** Prints the parts of the first chunk for each of `texts`, medians of `repeats` rounds. */
export async function printFirstChunkParts (voicePath: string, model: Uint8Array, texts: ReadonlyArray<readonly [string, string]>, repeats: number): Promise<void> {
  const split = splitDecoder(model, { cut: 'staged' })
  if (split.mode !== 'split') throw new Error(`${voicePath} has no staged cut: ${split.reason}`)
  const sessions = await Promise.all(encoderParts(split.split.encoder).map(async m => await ort.InferenceSession.create(m, { intraOpNumThreads: 1, interOpNumThreads: 1 })))
  const voice = await PiperVoice.load(voicePath, { cut: 'staged', session: { intraOpThreads: 1, encoderIntraOpThreads: 1 } })
  const quiet = resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, voice.config)
  const margin = voice.marginFrames(DEFAULT_CHUNKING)
  const round = async (text: string): Promise<Parts> => {
    let phonemes: Uint32Array[] = []
    const phonemize = await cpuOf(async () => { phonemes = await voice.phonemizeAsync(text) })
    const { ids } = voice.phonemeIds(phonemes[0])
    const feeds = {
      input: new ort.Tensor('int64', ids, [1, ids.length]),
      input_lengths: new ort.Tensor('int64', BigInt64Array.of(BigInt(ids.length)), [1]),
      scales: new ort.Tensor('float32', Float32Array.of(quiet.noiseScale, quiet.lengthScale, quiet.noiseW), [3])
    }
    const [text_, durations, whole] = [await cpuOf(async () => await sessions[0].run(feeds)), await cpuOf(async () => await sessions[1].run(feeds)), await cpuOf(async () => await sessions[2].run(feeds))]
    const encoding = await voice.encode(ids, quiet)
    const [first] = planChunks(encoding.frames, DEFAULT_CHUNKING, { stream: true, parallelism: 1, marginFrames: margin, leadFrames: 0 })
    const chunk = await cpuOf(async () => await voice.decodeChunk(encoding, first, margin))
    const flowed = await voice.flowed(encoding)
    const decoder = await cpuOf(async () => await voice.decodeChunk(flowed, first, margin))
    const engine = await cpuOf(async () => {
      const [p] = await voice.phonemizeAsync(text)
      await voice.decodeChunk(await voice.encode(voice.phonemeIds(p).ids, quiet), first, margin)
    })
    return { phonemize, text: text_, durations: durations - text_, prior: whole - durations, flow: chunk - decoder, decoder, engine }
  }
  console.log(`\nthe first chunk part by part, CPU ms on one thread (medians of ${repeats}): phonemes; the encoder's text encoder, duration predictor, ` +
    'prior (durations → frames, the noise); the flow over the first chunk\'s window; its decoder; and the engine\'s whole path (phonemes to the first chunk)')
  console.log('sentence        ids   phonemize  text enc  durations   prior   flow win  decoder   sum      engine')
  for (const [label, text] of texts) {
    await round(text)
    const runs: Parts[] = []
    for (let r = 0; r < repeats; r++) runs.push(await round(text))
    const m = (key: keyof Parts): number => median(runs.map(run => run[key]))
    const keys: Array<keyof Parts> = ['phonemize', 'text', 'durations', 'prior', 'flow', 'decoder']
    const sum = keys.reduce((total, key) => total + m(key), 0)
    const ids = voice.phonemeIds((await voice.phonemizeAsync(text))[0]).ids.length
    console.log(`${label.padEnd(15)} ${String(ids).padStart(4)} ${keys.map(k => m(k).toFixed(1).padStart(9)).join(' ')} ${sum.toFixed(1).padStart(8)} ${m('engine').toFixed(1).padStart(8)}`)
  }
  voice.close()
}
