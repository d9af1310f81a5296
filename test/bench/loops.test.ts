// The load models without HTTP: arrival schedules, an open loop against a
// simulated server that queues (latency must be charged from the schedule),
// a closed loop's concurrency, and windows held for a request count.

import t from 'tap'
import type { Sample } from '../../bench/client.js'
import { runClosedLoop } from '../../bench/closed-loop.js'
import { Rng } from '../../bench/corpus.js'
import { MeasureWindow } from '../../bench/loop.js'
import { arrivalOffsets, runOpenLoop } from '../../bench/open-loop.js'
import { sample } from './helpers.js'

function take (generator: Generator<number>, count: number): number[] {
  const out: number[] = []
  for (const value of generator) {
    out.push(value)
    if (out.length === count) break
  }
  return out
}

t.test('constant arrivals are evenly spaced and do not drift', async t => {
  const offsets = take(arrivalOffsets(3, 'constant', new Rng(1)), 3001)
  t.same(offsets.slice(0, 4), [0, 1000 / 3, 2000 / 3, 1000])
  t.equal(offsets[3000], 1_000_000, 'the 3000th arrival at 3 per second is exactly at 1000 s')
})

t.test('poisson arrivals: exponential gaps at the asked rate, the same for a seed', async t => {
  const offsets = take(arrivalOffsets(50, 'poisson', new Rng(42)), 20_001)
  const gaps = offsets.slice(1).map((offset, i) => offset - offsets[i])
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length
  const sd = Math.sqrt(gaps.reduce((a, b) => a + (b - mean) ** 2, 0) / gaps.length)
  t.ok(Math.abs(mean - 20) < 0.6, `mean gap ${mean} ms ≈ 20 ms`)
  t.ok(Math.abs(sd / mean - 1) < 0.05, `coefficient of variation ${sd / mean} ≈ 1`)
  t.ok(gaps.every(gap => gap >= 0))
  t.same(take(arrivalOffsets(50, 'poisson', new Rng(42)), 50), offsets.slice(0, 50), 'same seed, same schedule')
})

/** A server with one worker that takes `serviceMs` per request, first come first served. */
function queueingServer (serviceMs: number): { send: (due: number) => Promise<Sample>, maxWaiting: () => number } {
  let freeAt = 0
  let waiting = 0
  let maxWaiting = 0
  return {
    send: async (due: number) => {
      const sentMs = performance.now()
      const startMs = Math.max(sentMs, freeAt)
      freeAt = startMs + serviceMs
      waiting++
      maxWaiting = Math.max(maxWaiting, waiting)
      await new Promise(resolve => setTimeout(resolve, freeAt - sentMs))
      waiting--
      return sample(sentMs, performance.now(), { scheduledMs: due, latencyMs: performance.now() - due })
    },
    maxWaiting: () => maxWaiting
  }
}

t.test('open loop: a slow server cannot hide its queue (no coordinated omission)', async t => {
  // 40 requests/s offered to a server that manages 20: the queue grows by
  // one request every 50 ms, so the k-th request waits about k × 25 ms.
  const server = queueingServer(50)
  const loop = await runOpenLoop({ rate: 40, arrivals: 'constant', rng: new Rng(1), warmupMs: 0, durationMs: 500, maxInFlight: 1000, send: server.send })
  t.equal(loop.measured.length, 20, 'every scheduled request was sent: 0.5 s at 40/s')
  t.ok(server.maxWaiting() > 1, 'sent without waiting for answers: requests overlapped at the server')
  // The loop hands each send its due time, not the time it got round to it: at
  // 40/s those are exactly 25 ms apart, whatever the timers did. How close to
  // schedule it sent, how much piled up and how the queue shows in the
  // latency are timings: test/leak/bench-loops.leak.ts.
  const byDue = [...loop.measured].sort((a, b) => a.scheduledMs - b.scheduledMs)
  t.ok(byDue.every((s, i) => i === 0 || Math.abs(s.scheduledMs - byDue[i - 1].scheduledMs - 25) < 1e-6), 'latency is charged from the schedule, not from the send')
})

t.test('open loop: beyond max in flight, arrivals wait and are charged from their schedule', async t => {
  const server = queueingServer(40)
  const loop = await runOpenLoop({ rate: 100, arrivals: 'constant', rng: new Rng(1), warmupMs: 0, durationMs: 200, maxInFlight: 1, send: server.send })
  t.equal(server.maxWaiting(), 1, 'never more than one in flight')
  // Each answer takes 40 ms against arrivals 10 ms apart: how late the later
  // ones went out is test/leak/bench-loops.leak.ts's; here, that it is charged.
  t.ok(loop.measured.every(s => s.latencyMs >= s.endMs - s.sentMs && s.latencyMs >= s.endMs - s.scheduledMs - 1e-6), 'their latency runs from their schedule, the wait included')
})

t.test('closed loop: never more than N requests at once, each client sends when the last ends', async t => {
  let inFlight = 0
  let most = 0
  const send = async (): Promise<Sample> => {
    const sentMs = performance.now()
    inFlight++
    most = Math.max(most, inFlight)
    await new Promise(resolve => setTimeout(resolve, 10))
    inFlight--
    return sample(sentMs, performance.now())
  }
  const loop = await runClosedLoop({ concurrency: 3, warmupMs: 50, durationMs: 200, send })
  t.equal(most, 3)
  t.ok(loop.all.length > loop.measured.length, 'warm-up requests are kept apart')
  t.ok(loop.measured.every(s => s.scheduledMs >= loop.windowStartMs && s.scheduledMs < loop.windowEndMs))
  // Each takes at least 10 ms: three clients fit at most 3 × (200 / 10 + 1) in the window.
  t.ok(loop.measured.length > 0 && loop.measured.length <= 63, `requests measured within what three clients can send (${loop.measured.length})`)
})

t.test('a window held for a request count', async t => {
  const window = new MeasureWindow(0, { warmupMs: 10, requests: 2 })
  t.equal(window.admit(5), 'warm-up')
  t.equal(window.admit(10), 'measured')
  t.equal(window.admit(11), 'measured')
  t.equal(window.admit(12), 'stop')
  window.record(sample(10, 40), 'measured')
  window.record(sample(11, 70), 'measured')
  t.same([window.result().windowStartMs, window.result().windowEndMs], [10, 70], 'it ends with the last measured request')
  t.throws(() => new MeasureWindow(0, { warmupMs: 0 }), /duration or a request count/)
})
