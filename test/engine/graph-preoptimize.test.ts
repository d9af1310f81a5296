// The encoder's session (or a whole model's) is made from the graph as ONNX
// Runtime optimises it (native/graph_preoptimize.h): the same audio as a
// session made from the model itself, in less memory, and nothing left
// behind by the in-memory file the optimised graph passes through.

import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { BENCH_VOICES, testModel } from '../helpers/voices.js'
import { SANITIZED } from '../helpers/sanitizer.js'

const openFiles = (): number => readdirSync('/proc/self/fd').length

const TEXTS = ['Hello there.', 'A longer sentence, with a comma, to make more frames than the first one.']

async function sameAudio (t: Test, actual: PiperVoice, expected: PiperVoice): Promise<void> {
  const settings = { ...resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, expected.config), speakerId: 0 }
  for (const text of TEXTS) {
    const [phonemes] = await expected.phonemizeAsync(text)
    const { ids } = expected.phonemeIds(phonemes)
    t.same(await actual.sentenceSamples(ids, settings), await expected.sentenceSamples(ids, settings), `${text}: the same samples`)
  }
}

t.test('a split voice\'s encoder: less memory, the same audio', async t => {
  // A bench stand-in: a real voice's graph (6,263 nodes), which is what the
  // optimiser's leftovers scale with.
  const model = join(BENCH_VOICES, 'en_US-bench-x_low.onnx')
  // What the first load of a process pays once (ONNX Runtime's own tables)
  // must not land on either side.
  const first = await PiperVoice.load(await testModel('en_US-vits-medium'))
  t.teardown(() => first.close())
  const optimised = await PiperVoice.load(model)
  t.teardown(() => optimised.close())
  const plain = await PiperVoice.load(model, { session: { preoptimize: false } })
  t.teardown(() => plain.close())
  t.equal(optimised.mode.mode, 'split')
  t.equal(plain.mode.mode, 'split')
  // Measured: 31.5 vs 34.6 MB (the weights: 20.0 MB). memoryBytes is
  // glibc's heap in use; AddressSanitizer's allocator (npm run test:asan)
  // counts otherwise, so there only the audio is compared.
  t.test('memory', { skip: SANITIZED ? 'memory_bytes is not glibc\'s heap under AddressSanitizer' : false }, async t => {
    t.ok(optimised.memoryBytes < plain.memoryBytes - 1e6,
      `sessions from the optimised graph hold less (${optimised.memoryBytes} vs ${plain.memoryBytes} bytes)`)
  })
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
