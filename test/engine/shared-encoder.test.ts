// Voices of one architecture share one encoder session, each feeding its own
// weights (native/shared_encoder.h): the same audio as an encoder of its own,
// and a fallback to an encoder of its own when the template cannot be used.
// The memory a further voice saves is measured in test/leak/encoder-memory.leak.ts.

import { readFile } from 'node:fs/promises'
import t from 'tap'
import { initRuntime, PiperVoice } from '../../src/engine/index.js'
import { splitDecoder } from '../../src/engine/onnx/decoder-split.js'
import { encoderTemplate } from '../../src/engine/onnx/encoder-template.js'
import { testModel } from '../helpers/voices.js'
import { benchCopies } from '../helpers/voice-memory.js'
import { sameAudio } from '../helpers/same-audio.js'

t.test('voices of one architecture share the encoder: the same audio', async t => {
  const [a, b, c] = await benchCopies(t, ['voice-a', 'voice-b', 'voice-c'], { shrink: 4 })
  const one = await PiperVoice.load(a)
  t.teardown(() => one.close())
  const further = await PiperVoice.load(b)
  t.teardown(() => further.close())
  const own = await PiperVoice.load(c, { session: { shareEncoder: false } })
  t.teardown(() => own.close())
  t.ok(one.encoderShared && further.encoderShared, 'both run on the shared encoder')
  t.notOk(own.encoderShared, 'shareEncoder: false loads an encoder of its own')
  await sameAudio(t, further, own)
  await sameAudio(t, one, own)
})

t.test('a template the addon cannot use: an encoder of its own', async t => {
  const [model] = await benchCopies(t, ['voice-d'], { shrink: 4 })
  const file = await readFile(model)
  const split = splitDecoder(new Uint8Array(file.buffer, file.byteOffset, file.byteLength))
  if (split.mode !== 'split') throw new Error('the bench voice did not split')
  const { encoder, decoder, latent, framed, side } = split.split
  const made = encoderTemplate(encoder)
  if (made === null) throw new Error('no template')
  const { binding } = initRuntime()
  const parts = { encoder, decoder, boundary: [latent, ...framed, ...side] }
  const outside = made.weights.map((w, i) => i === 0 ? { ...w, offset: encoder.length } : w)
  const fallback = await binding.loadVoice(`${model}#outside`, {}, { ...parts, template: made.template, weights: outside })
  t.teardown(() => fallback.close())
  t.notOk(fallback.encoderShared, 'a weight outside the encoder\'s bytes: the encoder as it is')
  const renamed = made.weights.map((w, i) => i === 0 ? { ...w, name: 'no-such-input' } : w)
  const other = await binding.loadVoice(`${model}#renamed`, {}, { ...parts, template: made.template, weights: renamed })
  t.teardown(() => other.close())
  t.notOk(other.encoderShared, 'a weight the template does not take: the encoder as it is')
  const shared = await binding.loadVoice(`${model}#shared`, {}, { ...parts, template: made.template, weights: made.weights })
  t.teardown(() => shared.close())
  t.ok(shared.encoderShared, 'the same parts, intact: shared')
  const ids = BigInt64Array.of(1n, 0n, 20n, 0n, 59n, 0n, 2n)
  t.same(await shared.infer(ids, 0, 1, 0, 0), await fallback.infer(ids, 0, 1, 0, 0), 'the same samples either way')
  // Arguments are checked before any work is queued: a synchronous TypeError.
  t.throws(() => binding.loadVoice(`${model}#bad`, {}, { ...parts, template: made.template, weights: [{ name: 'x' }] as never }),
    /parts\.weights must be \[\{name: string, dims: number\[\], offset: number\}\]/)
})

t.test('shareEncoder must be a boolean', async t => {
  const model = await testModel('en_US-vits-medium')
  await t.rejects(PiperVoice.load(model, { session: { shareEncoder: 1 as unknown as boolean } }), /shareEncoder must be a boolean/)
})

t.test('a shared encoder with two threads has a one-thread twin for busy runs: the same latent', async t => {
  const [model, single] = await benchCopies(t, ['voice-e', 'voice-f'], { shrink: 4 })
  const two = await PiperVoice.load(model, { session: { intraOpThreads: 1, encoderIntraOpThreads: 2 } })
  t.teardown(() => two.close())
  const one = await PiperVoice.load(single, { session: { intraOpThreads: 1, encoderIntraOpThreads: 1 } })
  t.teardown(() => one.close())
  t.ok(two.hasBusyEncoder, 'two threads: a one-thread twin for busy runs')
  t.notOk(one.hasBusyEncoder, 'one thread already: no twin')
  const { ids } = two.phonemeIds(two.phonemize('Busy or idle, the encoder computes the same latent.')[0])
  const settings = { ...two.config.inference, noiseScale: 0, noiseW: 0, speakerId: 0, sentenceSilence: 0 }
  const idle = await two.encode(ids, settings)
  const busy = await two.encode(ids, settings, undefined, true)
  t.equal(busy.frames, idle.frames)
  t.same(busy.durations, idle.durations, 'the same durations')
  t.ok(busy.latent.every((v, i) => Math.abs(v - idle.latent[i]) <= 1e-4 * Math.max(1, Math.abs(idle.latent[i]))), 'the same latent (to float rounding across thread counts)')
})
