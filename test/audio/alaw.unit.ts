// G.711 A-law: the codes of the reference encoder at its landmarks, every
// 16-bit sample decoded back to within half its segment's step, and the
// codes' order following the samples' (a decoder sees the same waveform).

import t from 'tap'
import { aLawByte, aLawEncode, aLawSample } from '../../src/audio/alaw.js'

t.test('landmarks: silence, the smallest negative, the extremes', async t => {
  t.equal(aLawByte(0), 0xd5, '0 → 0xD5 (G.711\'s idle code)')
  t.equal(aLawByte(-1), 0x55)
  t.equal(aLawByte(32767), 0xaa)
  t.equal(aLawByte(-32768), 0x2a)
  t.equal(aLawSample(0xd5), 8, '0xD5 → +8, the middle of the first step')
  t.equal(aLawSample(0x55), -8)
})

t.test('every sample decodes to within half its step; decoding is monotonic', async t => {
  let previous = -Infinity
  let worst = 0
  for (let sample = -32768; sample <= 32767; sample++) {
    const back = aLawSample(aLawByte(sample))
    // Segments 0 and 1 step by 16; each further one doubles it.
    const step = Math.max(16, 2 ** (Math.floor(Math.log2(Math.max(1, Math.abs(sample)))) - 4))
    worst = Math.max(worst, Math.abs(back - sample) / step)
    if (back < previous) t.fail(`not monotonic at ${sample}`)
    previous = back
  }
  t.ok(worst <= 0.5 + 1 / 16, `worst error ${worst.toFixed(3)} of a step`)
  t.same([...aLawEncode(new Int16Array([0, -1, 32767]))], [0xd5, 0x55, 0xaa], 'aLawEncode is aLawByte over the array')
})
