// Admission of streams by demand against capacity (src/synthesis/stream-demand.ts,
// src/pool/cost-meter.ts): capacity is injected, the assertions are on who
// is admitted and on the refusal's status, header, code and message.

import t from 'tap'
import { CostMeter } from '../../src/pool/cost-meter.js'
import { StreamDemand } from '../../src/synthesis/stream-demand.js'
import { isChorusError } from '../../src/errors.js'

function demand (capacity: number | undefined, ratio = 1): StreamDemand {
  return new StreamDemand({ ratio, capacity: () => capacity, retryAfterSeconds: 6 })
}

t.test('beyond what the slots make, a new listener gets 503 with Retry-After', async t => {
  const streams = demand(2.5)
  const a = {}
  const b = {}
  streams.admit(a)
  const releaseB = streams.admit(b)
  let refused: unknown
  try {
    streams.admit({})
  } catch (error) {
    refused = error
  }
  t.ok(isChorusError(refused), 'a typed error')
  if (!isChorusError(refused)) return
  t.equal(refused.status, 503)
  t.equal(refused.code, 'ERR_OVERLOADED')
  t.same(refused.headers, { 'Retry-After': '6' })
  t.equal(refused.message, 'Server is busy: 2 streams are playing and the service makes 2.5 seconds of audio per second, retry later')
  t.same(refused.details, { streams: 2, capacity_audio_seconds_per_second: 2.5 })
  t.equal(streams.size, 2, 'the refused one holds no place')
  streams.admit(a)
  t.equal(streams.size, 2, 'a listener with a stream open (its next sentence) is never refused')
  const heard = {}
  streams.admit(heard, true)
  t.equal(streams.size, 3, 'nor one still hearing what its queue made')
  releaseB()
  releaseB()
  t.throws(() => streams.admit({}), { code: 'ERR_OVERLOADED' }, 'released once: still full with the heard one')
})

t.test('the ratio scales the limit; 0 admits all; unmeasured capacity admits all', async t => {
  const half = demand(4, 0.5)
  half.admit({})
  half.admit({})
  t.throws(() => half.admit({}), { code: 'ERR_OVERLOADED' })
  const all = demand(1, 0)
  for (let k = 0; k < 10; k++) all.admit({})
  t.equal(all.size, 10)
  const fresh = demand(undefined)
  for (let k = 0; k < 10; k++) fresh.admit({})
  t.equal(fresh.size, 10)
  const tiny = demand(0.1)
  t.doesNotThrow(() => tiny.admit({}), 'one stream is always admitted')
  t.throws(() => tiny.admit({}), { code: 'ERR_OVERLOADED' })
})

t.test('the cost meter: audio seconds per second the slots make, from inference time and audio returned', async t => {
  const meter = new CostMeter()
  t.equal(meter.capacity(2), undefined, 'nothing measured yet')
  meter.observe(500, 0) // an encoder run returning a latent: time, no audio
  t.equal(meter.capacity(2), undefined)
  meter.observe(300, 5) // its decoder chunk: 5 s of audio
  t.equal(meter.capacity(2), undefined, 'too little audio to tell')
  meter.observe(200, 6)
  const inference = (500 * 0.98 + 300) * 0.98 + 200
  const audio = 5000 * 0.98 + 6000
  t.ok(Math.abs((meter.capacity(2) ?? 0) - 2 * audio / inference) < 1e-9, 'audio made per inference time, times the slots')
  meter.observe(Number.NaN, 1)
  meter.observe(-1, 1)
  t.ok(Math.abs((meter.capacity(1) ?? 0) - audio / inference) < 1e-9, 'bad figures are ignored')
})
