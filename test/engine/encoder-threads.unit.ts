// A split voice's encoder session may run on more intra-op threads than its
// decoder (TTS_ONNX_ENCODER_THREADS): ONNX Runtime then starts one pool
// thread per extra thread for that session alone, and the audio stays the
// same.

import { readdirSync } from 'node:fs'
import t from 'tap'
import { PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { testModel } from '../helpers/voices.js'

const threads = (): number => readdirSync('/proc/self/task').length

t.test('the encoder\'s threads are its own; the decoder and whole voices keep intraOpThreads', async t => {
  const model = await testModel('en_US-vits-medium')
  // Loads once with the defaults, so the threads every load starts (libuv's pool) are there already.
  const plain = await PiperVoice.load(model)
  t.teardown(() => plain.close())
  t.equal(plain.mode.mode, 'split')

  let before = threads()
  const threeThreadEncoder = await PiperVoice.load(model, { session: { encoderIntraOpThreads: 3 } })
  t.teardown(() => threeThreadEncoder.close())
  t.equal(threads() - before, 2, 'three encoder threads: two pool threads beside the caller\'s')

  before = threads()
  const other = await PiperVoice.load(model, { session: { optimizationLevel: 2 } })
  t.teardown(() => other.close())
  t.equal(threads() - before, 0, 'another load with one thread starts none')

  before = threads()
  const whole = await PiperVoice.load(model, { split: false, session: { encoderIntraOpThreads: 3 } })
  t.teardown(() => whole.close())
  t.equal(whole.mode.mode, 'whole')
  t.equal(threads() - before, 0, 'a whole voice has no encoder session of its own')

  const settings = { ...resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, plain.config), speakerId: 0 }
  for (const text of ['Hello there.', 'A longer sentence, with a comma, to make more frames than the first one.']) {
    const [phonemes] = await plain.phonemizeAsync(text)
    const { ids } = plain.phonemeIds(phonemes)
    const expected = await plain.sentenceSamples(ids, settings)
    const actual = await threeThreadEncoder.sentenceSamples(ids, settings)
    t.equal(actual.length, expected.length, `${text}: same length`)
    let largest = 0
    for (let i = 0; i < expected.length; i++) largest = Math.max(largest, Math.abs(actual[i] - expected[i]))
    // Floating point may sum in another order across threads (bench x_low:
    // latent values differ by ~1e-6, PCM by at most 1 LSB).
    t.ok(largest <= 1 / 32768, `${text}: samples within 1 LSB (largest difference ${largest})`)
  }
})
