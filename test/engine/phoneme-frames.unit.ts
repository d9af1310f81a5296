// Phoneme spans from per-id durations: BOS with its pad, each phoneme with
// its ids and the pad after it, EOS; a phoneme missing from the map covers
// nothing; durations that do not match the ids give no timing.

import t from 'tap'
import { phonemeFrames, totalFrames } from '../../src/engine/phoneme-frames.js'

const MAP: Record<string, number[]> = { _: [0], '^': [1], $: [2], a: [3], b: [4, 5], ' ': [6] }
const cps = (s: string) => Uint32Array.from(s, c => c.codePointAt(0) as number)

t.test('each phoneme owns its ids and the pad after it; BOS and EOS are entries', async t => {
  // ids: ^ _ a _ b b _ ␠ _ a _ $
  const durations = Float32Array.from([2, 1, 3, 1, 4, 5, 1, 2, 2, 6, 1, 7])
  const result = phonemeFrames(cps('ab a'), MAP, durations)
  t.ok(result)
  t.same([...result!.phonemes].map(c => String.fromCodePoint(c)), ['^', 'a', 'b', ' ', 'a', '$'])
  t.same([...result!.frames], [3, 4, 10, 4, 7, 7])
  t.equal(totalFrames(result!.frames), durations.reduce((a, b) => a + b, 0), 'the entries tile every frame')
})

t.test('a phoneme missing from the map covers no frames', async t => {
  // ids: ^ _ a _ $  (x is skipped, as phonemeIds() skips it)
  const result = phonemeFrames(cps('xa'), MAP, Float32Array.from([1, 1, 2, 2, 3]))
  t.same([...result!.frames], [2, 0, 4, 3])
})

t.test('durations that do not match the ids give no timing', async t => {
  t.equal(phonemeFrames(cps('a'), MAP, Float32Array.from([1, 1, 1])), undefined, 'too few')
  t.equal(phonemeFrames(cps('a'), MAP, Float32Array.from([1, 1, 1, 1, 1, 1])), undefined, 'too many')
})
