// When a sentence spreads its decoding over a voice's workers: only over
// slots that would otherwise stay free (docs/engine.md, "Chunked decoding").

import t from 'tap'
import { decoderSpread } from '../../src/pool/voice-pool.js'

t.test('a sentence spreads its decoding only over slots that would stay free', async t => {
  t.equal(decoderSpread({ workers: 2, waiting: 0, freeSlots: 1 }), 2, 'idle: both workers')
  t.equal(decoderSpread({ workers: 4, waiting: 0, freeSlots: 1 }), 2, 'no more than the free slots')
  t.equal(decoderSpread({ workers: 2, waiting: 0, freeSlots: 3 }), 2, 'no more than the voice\'s workers')
  t.equal(decoderSpread({ workers: 2, waiting: 1, freeSlots: 1 }), 1, 'work waiting: the sentence runs whole')
  t.equal(decoderSpread({ workers: 2, waiting: 0, freeSlots: 0 }), 1)
})
