// The encoder's session (or a whole model's) is made from the graph as ONNX
// Runtime optimises it (native/graph_preoptimize.h): the same audio as a
// session made from the model itself, and nothing left behind by the
// in-memory file the optimised graph passes through. That it holds less
// memory is measured in test/leak/encoder-memory.leak.ts.

import { readdirSync } from 'node:fs'
import t from 'tap'
import { PiperVoice } from '../../src/engine/index.js'
import { testModel } from '../helpers/voices.js'
import { benchCopies } from '../helpers/voice-memory.js'
import { sameAudio } from '../helpers/same-audio.js'

const openFiles = (): number => readdirSync('/proc/self/fd').length

t.test('a split voice\'s encoder: the same audio', async t => {
  // Copies of a bench stand-in: a real voice's graph node for node, which is
  // what the optimiser's leftovers scale with; narrower weights only make
  // the comparison quicker.
  const [model, other] = await benchCopies(t, ['optimised', 'plain'], { shrink: 4 })
  // Each with an encoder of its own: a shared one (shared-encoder.test.ts)
  // holds its graph once for all voices, which would hide the difference.
  const optimisedOptions = { session: { shareEncoder: false } }
  const plainOptions = { session: { preoptimize: false, shareEncoder: false } }
  const optimised = await PiperVoice.load(model, optimisedOptions)
  t.teardown(() => optimised.close())
  const plain = await PiperVoice.load(other, plainOptions)
  t.teardown(() => plain.close())
  t.equal(optimised.mode.mode, 'split')
  t.equal(plain.mode.mode, 'split')
  await sameAudio(t, optimised, plain)
})

t.test('a whole voice: the same audio, and the in-memory file closed', async t => {
  const model = await testModel('en_US-vits-medium')
  const files = openFiles()
  const optimised = await PiperVoice.load(model, { split: false })
  t.teardown(() => optimised.close())
  t.equal(openFiles(), files, 'no descriptor left open')
  const plain = await PiperVoice.load(model, { split: false, session: { preoptimize: false } })
  t.teardown(() => plain.close())
  t.equal(optimised.mode.mode, 'whole')
  await sameAudio(t, optimised, plain)
})

t.test('preoptimize must be a boolean', async t => {
  const model = await testModel('en_US-vits-medium')
  await t.rejects(PiperVoice.load(model, { session: { preoptimize: 'yes' as unknown as boolean } }), /preoptimize must be a boolean/)
})
