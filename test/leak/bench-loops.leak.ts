// The load harness's own timing: an open loop sends on schedule, and a slow
// server's queue shows in the latency it reports (no coordinated omission).
// Judged against the same run: how late this process's own timers fire
// meanwhile (a loaded machine delays the harness and the timers alike), and
// the queue a server taking 50 ms per request must build at 40 requests/s.

import t from 'tap'
import type { Sample } from '../../bench/client.js'
import { Rng } from '../../bench/corpus.js'
import { runOpenLoop } from '../../bench/open-loop.js'
import { sample } from '../bench/helpers.js'
import { figures, median, repeat, ROUNDS } from './figures.js'

const SERVICE_MS = 50
const RATE = 40

/** A server with one worker taking SERVICE_MS per request, first come first served. */
function queueingServer (): (due: number) => Promise<Sample> {
  let freeAt = 0
  return async (due: number) => {
    const sentMs = performance.now()
    freeAt = Math.max(sentMs, freeAt) + SERVICE_MS
    await new Promise(resolve => setTimeout(resolve, freeAt - sentMs))
    return sample(sentMs, performance.now(), { scheduledMs: due, latencyMs: performance.now() - due })
  }
}

/** Runs `work` while a 5 ms timer measures how late it fires; returns the latest. */
async function withTimerLateness<T> (work: () => Promise<T>): Promise<[T, number]> {
  let latest = 0
  let expected = performance.now() + 5
  const timer = setInterval(() => {
    latest = Math.max(latest, performance.now() - expected)
    expected = performance.now() + 5
  }, 5)
  try {
    return [await work(), latest]
  } finally {
    clearInterval(timer)
  }
}

t.test('open loop: sent on schedule, and the queue is charged to the latency', async t => {
  const lags: number[] = []
  const lateness: number[] = []
  const queueing: number[] = []
  await repeat(ROUNDS, async () => {
    const [loop, late] = await withTimerLateness(async () =>
      await runOpenLoop({ rate: RATE, arrivals: 'constant', rng: new Rng(1), warmupMs: 0, durationMs: 500, maxInFlight: 1000, send: queueingServer() }))
    t.equal(loop.measured.length, 20)
    lags.push(Math.max(...loop.measured.map(s => s.sentMs - s.scheduledMs)))
    lateness.push(late)
    // The k-th of n requests ends after k services; it was due k × 1000 / RATE ms in.
    const byDue = [...loop.measured].sort((a, b) => a.scheduledMs - b.scheduledMs)
    const last = byDue[byDue.length - 1]
    const expected = byDue.length * SERVICE_MS - (byDue.length - 1) * 1000 / RATE
    queueing.push(last.latencyMs / expected)
    return 0
  })
  figures(t, 'largest send lag', lags, 'ms')
  figures(t, 'largest timer lateness meanwhile', lateness, 'ms')
  figures(t, 'last latency / its queue\'s length in service time', queueing)
  t.ok(median(lags) <= median(lateness) + 1000 / RATE, 'sent within one arrival gap of what the timers themselves allowed')
  t.ok(median(queueing) >= 0.95, 'the last request\'s latency includes all of its queueing')
  t.ok(median(queueing) < 1.7, 'and not much more')
})

t.test('open loop beyond its max in flight: later arrivals wait, and go out late by the queue ahead of them', async t => {
  // One in flight, 40 ms an answer, arrivals 10 ms apart: the k-th (from 0)
  // cannot go out before k answers, so it is k × 30 ms late at least.
  const lateness: number[] = []
  const shares: number[] = []
  await repeat(ROUNDS, async () => {
    let freeAt = 0
    const send = async (due: number): Promise<Sample> => {
      const sentMs = performance.now()
      freeAt = Math.max(sentMs, freeAt) + 40
      await new Promise(resolve => setTimeout(resolve, freeAt - sentMs))
      return sample(sentMs, performance.now(), { scheduledMs: due, latencyMs: performance.now() - due })
    }
    const [loop, late] = await withTimerLateness(async () =>
      await runOpenLoop({ rate: 100, arrivals: 'constant', rng: new Rng(1), warmupMs: 0, durationMs: 200, maxInFlight: 1, send }))
    lateness.push(late)
    const byDue = [...loop.measured].sort((a, b) => a.scheduledMs - b.scheduledMs)
    const last = byDue.length - 1
    shares.push((byDue[last].sentMs - byDue[last].scheduledMs) / (last * 30))
    return 0
  })
  figures(t, 'largest timer lateness meanwhile', lateness, 'ms')
  figures(t, 'last send lag / the queue ahead of it', shares)
  t.ok(median(shares) >= 0.95, 'the last arrival waited for every answer ahead of it')
})
