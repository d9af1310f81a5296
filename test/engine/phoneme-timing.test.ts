// The durations come out of the encoder run itself, for every speaker of the
// multi-speaker bench voice: each phoneme's frames (BOS and EOS included)
// add up to the frames the decoder turns into samples, so a sentence's
// phoneme spans end exactly at its last sample. A graph with no Ceil (the
// generated stand-ins) gives none, and still speaks.

import { join } from 'node:path'
import t from 'tap'
import { PiperVoice, resolveSynthesisConfig, totalFrames } from '../../src/engine/index.js'
import { splitDecoder } from '../../src/engine/onnx/decoder-split.js'
import { readFile } from 'node:fs/promises'
import { BENCH_VOICES, testModel } from '../helpers/voices.js'

const MULTI = join(BENCH_VOICES, 'en_GB-benchmulti-medium.onnx')

t.test('the split finds Piper\'s Ceil and makes it an encoder output', async t => {
  const result = splitDecoder(await readFile(MULTI))
  t.equal(result.mode, 'split')
  if (result.mode === 'split') t.ok(result.split.durations !== undefined, `durations from ${result.split.durations}`)
})

t.test('every speaker: the phonemes\' frames are the sentence\'s frames', async t => {
  const voice = await PiperVoice.load(MULTI)
  t.teardown(() => voice.close())
  t.equal(voice.config.numSpeakers, 109)
  const [phonemes] = await voice.phonemizeAsync('Hello there, how are you?')
  const { ids } = voice.phonemeIds(phonemes)
  let failed = 0
  for (let speakerId = 0; speakerId < voice.config.numSpeakers; speakerId++) {
    const settings = { ...resolveSynthesisConfig({ lengthScale: 1 + (speakerId % 3) * 0.4 }, voice.config), speakerId }
    const encoding = await voice.encode(ids, settings)
    const frames = voice.phonemeFrames(phonemes, encoding)
    if (frames === undefined || totalFrames(frames.frames) !== encoding.frames || frames.phonemes.length !== phonemes.length + 2) failed++
  }
  t.equal(failed, 0, 'all 109 speakers, at three length_scales')
  // And the decoder makes frames × hop samples of it, chunked or not (noise
  // off: two runs, the same durations).
  const settings = { ...resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, voice.config), speakerId: 7 }
  const encoding = await voice.encode(ids, settings)
  const samples = await voice.sentenceSamples(ids, settings, { chunkFrames: 16, marginFrames: 8, firstChunkFrames: 16, maxPhonemes: 400, growStreamChunks: false, streamChunkGrowth: 1, cut: 'flow' })
  t.equal(samples.length, totalFrames(voice.phonemeFrames(phonemes, encoding)?.frames ?? new Uint32Array()) * voice.hopLength)
})

t.test('a graph with no Ceil gives no durations', async t => {
  const voice = await PiperVoice.load(await testModel('en_US-vits-medium'))
  t.teardown(() => voice.close())
  const [phonemes] = await voice.phonemizeAsync('Hello.')
  const encoding = await voice.encode(voice.phonemeIds(phonemes).ids, { ...resolveSynthesisConfig({}, voice.config), speakerId: 0 })
  t.equal(encoding.durations, undefined)
  t.equal(voice.phonemeFrames(phonemes, encoding), undefined)
})
