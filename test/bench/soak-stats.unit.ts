// The soak's conclusions from its samples: warm-up length and RSS drift.

import t from 'tap'
import { rssDrift, warmupSeconds } from '../../bench/soak/stats.js'

t.test('warm-up: five minutes, or a sixth of a shorter run', async t => {
  t.equal(warmupSeconds(1800), 300)
  t.equal(warmupSeconds(60), 10)
  t.equal(warmupSeconds(3600), 300)
})

t.test('drift compares the lower quartiles of the first and last tenth after warm-up', async t => {
  // Warm-up grows from 100 to 200 MB; after it, flat at 200 MB with one GC spike.
  const samples = Array.from({ length: 120 }, (_, i) => ({ t: i * 5, bytes: i < 20 ? 100e6 + i * 5e6 : 200e6 }))
  samples[60].bytes = 400e6
  const flat = rssDrift(samples, 100)
  t.same(flat && { baseline: flat.baselineBytes, final: flat.finalBytes, percent: flat.percent }, { baseline: 200e6, final: 200e6, percent: 0 })
  t.ok(flat !== undefined && Math.abs(flat.slopeMbPerMinute) < 1, 'one spike barely moves the slope')

  const leaking = Array.from({ length: 100 }, (_, i) => ({ t: i * 6, bytes: 100e6 + i * 1e6 }))
  const drift = rssDrift(leaking, 0)
  t.equal(drift?.baselineBytes, 102.25e6)
  t.equal(drift?.finalBytes, 192.25e6)
  t.ok(drift !== undefined && Math.abs(drift.percent - 90 / 102.25 * 100) < 1e-9)
  t.ok(drift !== undefined && Math.abs(drift.medianPercent - 90 / 104.5 * 100) < 1e-9, 'medians too')
  t.ok(drift !== undefined && Math.abs(drift.slopeMbPerMinute - 10) < 1e-9, '1 MB per 6 s is 10 MB per minute')
})

t.test('bursts decide the medians, not the resting level', async t => {
  // Resting at 400 MB throughout; 600 MB while sentences are in flight, in
  // 30 % of the first tenth's samples and 70 % of the last tenth's.
  const burst = (i: number): boolean => i < 10 ? i % 10 < 3 : i >= 90 ? i % 10 < 6 : i % 2 === 0
  const samples = Array.from({ length: 100 }, (_, i) => ({ t: i * 5, bytes: burst(i) ? 600e6 : 400e6 }))
  const drift = rssDrift(samples, 0)
  t.equal(drift?.percent, 0, 'the lower quartile stays at rest')
  t.equal(drift?.medianPercent, 50, 'the medians jump with the bursts')
})

t.test('no drift without two samples after warm-up', async t => {
  t.equal(rssDrift([{ t: 0, bytes: 1 }, { t: 10, bytes: 2 }], 5), undefined)
})
