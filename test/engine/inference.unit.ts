// The probe models spell out their inputs, so these tests see exactly what
// reached ONNX Runtime.

import t from 'tap'
import { PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { probeLength, readProbeOutput } from '../../scripts/lib/probe-model.js'
import { testModel } from '../helpers/voices.js'

const single = await PiperVoice.load(await testModel('en_US-probe-medium'))
const multi = await PiperVoice.load(await testModel('en_GB-probemulti-medium'))
t.teardown(() => { single.close(); multi.close() })

t.test('ids, lengths and scales arrive exactly; no sid for one speaker', async t => {
  const [phonemes] = single.phonemize('Hello, how can I help you today?')
  const { ids } = single.phonemeIds(phonemes)
  const settings = resolveSynthesisConfig({ noiseScale: 0.25, lengthScale: 1.5, noiseW: 0.75 }, single.config)
  const output = await single.infer(ids, settings)
  t.equal(output.length, probeLength(ids.length, false), 'T follows from the input: N + 5')
  const reading = readProbeOutput(output, false)
  t.same(reading.ids, Array.from(ids, Number))
  t.equal(reading.length, ids.length)
  t.ok(Math.abs(reading.noiseScale - 0.25) < 1e-4)
  t.ok(Math.abs(reading.lengthScale - 1.5) < 1e-4)
  t.ok(Math.abs(reading.noiseW - 0.75) < 1e-4)
  t.equal(reading.speakerId, undefined)
})

t.test('the voice config supplies the defaults', async t => {
  const settings = resolveSynthesisConfig({}, multi.config)
  const [phonemes] = multi.phonemize('Hi.')
  const reading = readProbeOutput(await multi.infer(multi.phonemeIds(phonemes).ids, settings), true)
  t.ok(Math.abs(reading.noiseScale - 0.333) < 1e-4)
  t.ok(Math.abs(reading.lengthScale - 1.4) < 1e-4)
  t.ok(Math.abs(reading.noiseW - 0.333) < 1e-4)
  t.equal(reading.speakerId, 0, 'default speaker 0')
})

t.test('sid arrives for multi-speaker voices, by id or by name', async t => {
  const [phonemes] = multi.phonemize('Hi.')
  const { ids } = multi.phonemeIds(phonemes)
  const byId = readProbeOutput(await multi.infer(ids, resolveSynthesisConfig({ speaker: 42 }, multi.config)), true)
  t.equal(byId.speakerId, 42)
  const name = Object.keys(multi.config.speakerIdMap)[7]
  const byName = readProbeOutput(await multi.infer(ids, resolveSynthesisConfig({ speaker: name }, multi.config)), true)
  t.equal(byName.speakerId, multi.config.speakerIdMap[name])
  t.equal(byName.ids.length, ids.length + 0)
})

t.test('out-of-range settings are refused before the native call', async t => {
  t.throws(() => resolveSynthesisConfig({ speaker: 109 }, multi.config),
    { code: 'ERR_INVALID_ARGUMENT', message: 'Expected an integer from 0 to 108 or a speaker name for speaker but received 109 (number)' })
  t.throws(() => resolveSynthesisConfig({ speaker: 'nobody' }, multi.config), { message: /for speaker but received "nobody" \(string\)/ })
  t.throws(() => resolveSynthesisConfig({ speaker: 1 }, single.config), { message: /integer from 0 to 0/ })
  t.throws(() => resolveSynthesisConfig({ lengthScale: 0 }, single.config),
    { message: 'Expected a number from 0.1 to 5 for length_scale but received 0 (number)' })
  t.throws(() => resolveSynthesisConfig({ noiseScale: Number.NaN }, single.config), { message: /noise_scale but received NaN \(NaN\)/ })
  t.throws(() => resolveSynthesisConfig({ sentenceSilence: 11 }, single.config), { message: /from 0 to 10 for sentence_silence/ })
})

t.test('whole texts: one PCM run per sentence, silence between them', async t => {
  const text = 'One. Two! Three?'
  const sentences = single.phonemize(text)
  t.equal(sentences.length, 3)
  const settings = resolveSynthesisConfig({ sentenceSilence: 0.1 }, single.config)
  const result = await single.synthesize(text, settings)
  const lengths = sentences.map(s => probeLength(single.phonemeIds(s).ids.length, false))
  const gap = Math.floor(22050 * 0.1)
  t.equal(result.sentences, 3)
  t.equal(result.sampleRate, 22050)
  t.equal(result.pcm.length, lengths[0] + gap + lengths[1] + gap + lengths[2])
  // Each sentence starts with the probe's marker at full scale.
  t.equal(result.pcm[0], 32767)
  t.equal(result.pcm[lengths[0] + gap], 32767)
  t.ok(result.pcm.subarray(lengths[0], lengths[0] + gap).every(s => s === 0), 'the gap is silent')
  const first = readProbeOutput(Array.from(result.pcm.subarray(0, lengths[0]), s => s / 32767), false)
  t.same(first.ids, Array.from(single.phonemeIds(sentences[0]).ids, Number), 'ids survive PCM conversion')
  t.equal(result.missingPhonemes, 0)
})

t.test('empty text gives empty audio', async t => {
  const result = await single.synthesize('   ', resolveSynthesisConfig({}, single.config))
  t.equal(result.sentences, 0)
  t.equal(result.pcm.length, 0)
})
