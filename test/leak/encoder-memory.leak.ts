// What a voice's load holds (voice.memoryBytes, the addon's measure of the
// process heap's growth across the load), compared between two ways of
// loading the same bench stand-in in the same run: the graph ONNX Runtime
// optimised vs the model as it is (native/graph_preoptimize.h), and a
// further voice on the shared encoder vs an encoder of its own
// (native/shared_encoder.h). Another thread freeing a buffer during a load
// hides part of its growth and never adds to it (CI saw 25.1 MB where the
// same load measures 30.9), so each side is the largest of its loads, and
// the loads of the two sides alternate.

import t, { type Test } from 'tap'
import { PiperVoice, type LoadVoiceOptions } from '../../src/engine/index.js'
import { testModel } from '../helpers/voices.js'
import { benchCopies } from '../helpers/voice-memory.js'
import { SANITIZED } from '../helpers/sanitizer.js'
import { figures, most } from './figures.js'

const LOADS = 4
const skip = SANITIZED ? 'memory_bytes is not glibc\'s heap under AddressSanitizer' : false

/** Loads a fresh copy per round for each side, alternating; returns each side's figures. */
async function alternate (t: Test, sides: Record<'a' | 'b', LoadVoiceOptions>, check: (a: PiperVoice, b: PiperVoice) => void): Promise<Record<'a' | 'b', number[]>> {
  const [primer, ...copies] = await benchCopies(t, Array.from({ length: 2 * LOADS + 1 }, (_, i) => `copy-${i}`))
  // ONNX Runtime's own tables, paid by the first load of a process, and the
  // shared encoder's graph, paid by the first voice on it, on neither side.
  const first = await PiperVoice.load(await testModel('en_US-vits-medium'))
  const primed = await PiperVoice.load(primer, sides.a)
  t.teardown(() => { first.close(); primed.close() })
  const bytes: Record<'a' | 'b', number[]> = { a: [], b: [] }
  for (let i = 0; i < LOADS; i++) {
    const a = await PiperVoice.load(copies[2 * i], sides.a)
    const b = await PiperVoice.load(copies[2 * i + 1], sides.b)
    t.teardown(() => { a.close(); b.close() })
    check(a, b)
    bytes.a.push(a.memoryBytes)
    bytes.b.push(b.memoryBytes)
  }
  return bytes
}

t.test('a split voice\'s encoder from the optimised graph holds less than from the model', { skip }, async t => {
  // Each with an encoder of its own: a shared one holds its graph once for
  // all voices, which would hide the difference. Measured: 32.0 vs 35.4 MB.
  const { a: optimised, b: plain } = await alternate(t,
    { a: { session: { shareEncoder: false } }, b: { session: { preoptimize: false, shareEncoder: false } } },
    (a, b) => { t.same([a.mode.mode, b.mode.mode], ['split', 'split']) })
  figures(t, 'optimised graph', optimised, 'MB')
  figures(t, 'plain model', plain, 'MB')
  t.ok(most(optimised) < most(plain), `sessions from the optimised graph hold less (${most(optimised)} vs ${most(plain)} bytes, the largest of ${LOADS} loads each)`)
})

t.test('a further voice on the shared encoder holds its weights, not another encoder graph', { skip }, async t => {
  // Measured: 21.5 vs 31.7 MB (the weights: 20.0 MB).
  const { a: further, b: own } = await alternate(t,
    { a: {}, b: { session: { shareEncoder: false } } },
    (a, b) => { t.same([a.encoderShared, b.encoderShared], [true, false]) })
  figures(t, 'on the shared encoder', further, 'MB')
  figures(t, 'an encoder of its own', own, 'MB')
  t.ok(most(further) < most(own) * 0.9, `a further voice holds ${(most(further) / most(own) * 100).toFixed(0)} % of a voice with an encoder of its own (the largest of ${LOADS} loads each)`)
})
