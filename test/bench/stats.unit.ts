// The harness's statistics: percentiles, the share of a request inside a
// window, a level's figures from samples, and /metrics parsing.

import t from 'tap'
import { levelLabel, shareInWindow, summariseLevel } from '../../bench/aggregate.js'
import { parsePrometheus } from '../../bench/metrics-scrape.js'
import { percentiles } from '../../bench/stats.js'
import { sample } from './helpers.js'

t.test('percentiles interpolate linearly between ranks', async t => {
  const values = Array.from({ length: 101 }, (_, i) => 100 - i) // 0..100, unsorted
  t.same(percentiles(values), { p50: 50, p90: 90, p99: 99, max: 100, mean: 50 })
  const four = percentiles([10, 20, 30, 40])
  t.equal(four?.p50, 25)
  t.equal(four?.p90, 37)
  t.ok(Math.abs((four?.p99 ?? 0) - 39.7) < 1e-9)
  t.same(percentiles([7]), { p50: 7, p90: 7, p99: 7, max: 7, mean: 7 })
  t.equal(percentiles([]), null, 'no values: null, which JSON can hold')
})

t.test('a request counts in a window by the share of its flight inside it', async t => {
  t.equal(shareInWindow({ sentMs: 10, endMs: 20 }, 0, 100), 1)
  t.equal(shareInWindow({ sentMs: 90, endMs: 110 }, 0, 100), 0.5)
  t.equal(shareInWindow({ sentMs: -30, endMs: 10 }, 0, 100), 0.25)
  t.equal(shareInWindow({ sentMs: -10, endMs: 110 }, 0, 100), 100 / 120)
  t.equal(shareInWindow({ sentMs: 110, endMs: 120 }, 0, 100), 0)
  t.equal(shareInWindow({ sentMs: 50, endMs: 50 }, 0, 100), 1, 'an instant answer inside counts whole')
})

t.test('a level: rates from the window, latencies from requests due in it, errors by kind', async t => {
  const measured = [
    sample(1000, 1500, { audioSeconds: 2, characters: 30 }),
    sample(1200, 1800, { audioSeconds: 4, characters: 50 }),
    sample(1300, 1310, { status: 503, error: '503', message: 'Server is busy', audioSeconds: 0 }),
    sample(1400, 1420, { status: 503, error: '503', audioSeconds: 0 }),
    sample(1500, 1600, { status: 0, error: 'ECONNRESET', audioSeconds: 0 }),
    // Due in the window, finished after it: its latency counts, half its audio does.
    sample(2800, 3200, { audioSeconds: 8, characters: 80 })
  ]
  // Sent in the warm-up, finished inside: counts for rates, not latencies.
  const warmup = sample(600, 1100, { audioSeconds: 5, characters: 40 })
  const level = summariseLevel({
    model: 'closed',
    load: 2,
    loop: { measured, all: [warmup, ...measured], windowStartMs: 1000, windowEndMs: 3000 },
    server: null,
    ceiling: 10
  })
  t.equal(level.windowSeconds, 2)
  t.equal(level.requests, 6)
  t.equal(level.ok, 3)
  t.same(level.errors, { 503: 2, ECONNRESET: 1 })
  t.same(level.errorMessages, { 503: 'Server is busy' })
  t.equal(level.requestsPerSecond, 3 / 2, 'three successful completions inside the window')
  // audio: warm-up 5 × 0.2 + 2 + 4 + 8 × 0.5 = 11 seconds over 2 s
  t.equal(level.audioSecondsPerSecond, 5.5)
  t.equal(level.ceilingFraction, 0.55)
  t.equal(level.charactersPerSecond, (40 * 0.2 + 30 + 50 + 80 * 0.5) / 2)
  t.same(level.latencyMs, percentiles([500, 600, 400]))
  t.equal(level.sendLagMs, null, 'send lag is an open-loop figure')
  t.equal(level.realTimeFactor?.p50, 0.15, 'latency over audio: 0.25, 0.15, 0.05')
  t.equal(levelLabel(level), 'c=2')
  t.equal(levelLabel({ model: 'open', load: 2.5 }), '2.50/s')
})

t.test('an open level reports how late the harness sent, and latency from the schedule', async t => {
  const measured = [
    sample(1005, 1205, { scheduledMs: 1000 }),
    sample(1100, 1400, { scheduledMs: 1100 }),
    sample(1230, 1500, { scheduledMs: 1200 })
  ]
  const level = summariseLevel({ model: 'open', load: 10, loop: { measured, all: measured, windowStartMs: 1000, windowEndMs: 2000 }, server: null, ceiling: null })
  t.same(level.latencyMs, percentiles([205, 300, 300]))
  t.same(level.sendLagMs, percentiles([5, 0, 30]))
  t.equal(level.ceilingFraction, null)
})

t.test('/metrics: values summed over label sets, comments and junk skipped', async t => {
  const text = [
    '# HELP chorus_queue_depth Sentences waiting',
    '# TYPE chorus_queue_depth gauge',
    'chorus_queue_depth 3',
    'chorus_http_requests_total{route="/tts",method="POST",status="200"} 10',
    'chorus_http_requests_total{route="/tts",method="POST",status="503"} 2',
    'process_resident_memory_bytes 123456789 1700000000000',
    'weird_label{path="a b} c"} 4',
    'not a metric line',
    ''
  ].join('\n')
  const values = parsePrometheus(text)
  t.equal(values.get('chorus_queue_depth'), 3)
  t.equal(values.get('chorus_http_requests_total'), 12)
  t.equal(values.get('process_resident_memory_bytes'), 123456789)
  t.equal(values.get('weird_label'), 4)
  t.equal(values.size, 4)
})
