// When a sentence's encoder gives up its extra threads: only while other
// inferences hold the cores they would contend for (docs/sizing.md).

import t from 'tap'
import { encoderBusy } from '../../src/pool/voice-pool.js'

t.test('the encoder runs on one thread only when its others would contend with running inferences', async t => {
  t.notOk(encoderBusy({ running: 1, limit: 2, encoderThreads: 2 }), 'alone on two cores: both threads')
  t.ok(encoderBusy({ running: 2, limit: 2, encoderThreads: 2 }), 'another inference runs: one thread')
  t.notOk(encoderBusy({ running: 2, limit: 4, encoderThreads: 2 }), 'four cores, two running: room for its second thread')
  t.ok(encoderBusy({ running: 2, limit: 4, encoderThreads: 4 }), 'but not for three more')
  t.notOk(encoderBusy({ running: 2, limit: 2, encoderThreads: 1 }), 'one thread already')
})
