// Two loads of a voice that must speak alike: the same samples at noise 0,
// for a short sentence and one long enough to make several chunks. (How far
// apart two runs' samples are is scripts/lib/sample-difference.ts.)

import type { Test } from 'tap'
import { type PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'

const TEXTS = ['Hello there.', 'A longer sentence, with a comma, to make more frames than the first one.']

export async function sameAudio (t: Test, actual: PiperVoice, expected: PiperVoice): Promise<void> {
  const settings = { ...resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, expected.config), speakerId: 0 }
  for (const text of TEXTS) {
    const [phonemes] = await expected.phonemizeAsync(text)
    const { ids } = expected.phonemeIds(phonemes)
    t.same(await actual.sentenceSamples(ids, settings), await expected.sentenceSamples(ids, settings), `${text}: the same samples`)
  }
}
