// Quotas per key on an injected clock: a sliding minute of requests and of
// audio, open streams, the computed Retry-After, and state dropped on reload.

import t from 'tap'
import type { ApiKey, KeyQuotas } from '../../src/access/keys-file.js'
import { MinuteWindow, Quotas } from '../../src/access/quotas.js'

const key = (quotas: KeyQuotas, name = 'bot-a'): ApiKey => ({ key: 'sk-0123456789abcdef', name, role: 'user', weight: 1, quotas })
const clock = (start = 1_000_000): { now: () => number, advance: (ms: number) => void } => {
  let now = start
  return { now: () => now, advance: ms => { now += ms } }
}

/** The 429's fields, or undefined when admitted. */
function refusal (attempt: () => unknown): { quota: unknown, retryAfter: string | undefined, message: string } | undefined {
  try {
    attempt()
    return undefined
  } catch (error) {
    const { details, headers, message, status, code } = error as { details: Record<string, unknown>, headers: Record<string, string>, message: string, status: number, code: string }
    if (status !== 429 || code !== 'ERR_QUOTA_EXCEEDED') throw error
    return { quota: details.quota, retryAfter: headers['Retry-After'], message }
  }
}

t.test('a window sums the last 60 s and says when it falls below a limit', async t => {
  const window = new MinuteWindow()
  window.add(0, 3)
  window.add(10_500, 2)
  window.add(59_999, 1)
  t.equal(window.total(59_999), 6)
  t.equal(window.secondsUntilBelow(59_999, 7), 0, 'below already')
  t.equal(window.secondsUntilBelow(59_999, 6), 1, 'the first bucket leaves at 60 s, ceiled to a whole second')
  t.equal(window.secondsUntilBelow(59_999, 2), 11, 'the second leaves at 70 s')
  t.equal(window.total(60_000), 3, 'the first second has left')
  t.equal(window.total(200_000), 0, 'stale buckets read as empty, reused slots reset')
  window.add(200_000, 4)
  t.equal(window.total(200_000), 4)
})

t.test('requests per minute: the limit, then 429 with the wait until the oldest ages out', async t => {
  const time = clock()
  const quotas = new Quotas(time.now, 60_000)
  const bot = key({ requestsPerMinute: 3 })
  quotas.admitRequest(bot)
  time.advance(20_000)
  quotas.admitRequest(bot)
  quotas.admitRequest(bot)
  const refused = refusal(() => quotas.admitRequest(bot))
  t.same(refused?.quota, 'requests_per_minute')
  t.equal(refused?.retryAfter, '40', 'the first request leaves the window 40 s later')
  t.match(refused?.message, /^The key "bot-a" is over its quota of 3 requests per minute: retry in 40 s$/)
  time.advance(39_000)
  t.equal(refusal(() => quotas.admitRequest(bot))?.retryAfter, '1', 'computed from the clock, not a constant')
  time.advance(1000)
  t.equal(refusal(() => quotas.admitRequest(bot)), undefined, 'admitted once the first has aged out')
  t.equal(refusal(() => quotas.admitRequest(key({}, 'bot-b'))), undefined, 'another key has its own minute')
})

t.test('audio seconds per minute: charged after the fact, refused while the minute is over', async t => {
  const time = clock()
  const quotas = new Quotas(time.now, 60_000)
  const bot = key({ audioSecondsPerMinute: 10 })
  quotas.admitStream(bot)()
  quotas.chargeAudio('bot-a', 12)
  time.advance(5000)
  const refused = refusal(() => quotas.admitStream(bot))
  t.equal(refused?.quota, 'audio_seconds_per_minute')
  t.equal(refused?.retryAfter, '55')
  t.match(refused?.message, /quota of 10 audio seconds per minute/)
  time.advance(55_000)
  t.equal(refusal(() => quotas.admitStream(bot)), undefined)
})

t.test('concurrent streams: held until released; Retry-After is when the oldest must have ended', async t => {
  const time = clock()
  const quotas = new Quotas(time.now, 30_000)
  const bot = key({ concurrentStreams: 2 })
  const first = quotas.admitStream(bot)
  time.advance(10_000)
  const second = quotas.admitStream(bot)
  t.equal(quotas.openStreams('bot-a'), 2)
  const refused = refusal(() => quotas.admitStream(bot))
  t.equal(refused?.quota, 'concurrent_streams')
  t.equal(refused?.retryAfter, '20', 'the first one reaches the 30 s timeout in 20 s')
  first()
  first()
  t.equal(quotas.openStreams('bot-a'), 1, 'a release counts once')
  quotas.admitStream(bot)
  second()
  t.equal(quotas.openStreams('bot-a'), 1)
})

t.test('no quotas: nothing refused; a reload drops the use of removed keys', async t => {
  const time = clock()
  const quotas = new Quotas(time.now, 60_000)
  for (let i = 0; i < 1000; i++) quotas.admitRequest(key({}, 'unlimited'))
  const limited = key({ requestsPerMinute: 1 })
  quotas.admitRequest(limited)
  t.ok(refusal(() => quotas.admitRequest(limited)))
  quotas.retain(new Set(['bot-b']))
  t.equal(refusal(() => quotas.admitRequest(limited)), undefined, 'a key removed and added again starts afresh')
})
