// When the arena's memory goes back: after the gate has been idle a while,
// or periodically under sustained load; never when nothing ran; one release
// at a time; a failing release is reported and the next one still happens;
// under load, now and then with the gate drained (no inference running).
// Time is a fake clock and ticks are called by hand.

import t from 'tap'
import { InferenceGate } from '../../src/pool/inference-gate.js'
import { MemoryReleaser, type MemoryReleaseTiming } from '../../src/engine/memory/index.js'

const TIMING: MemoryReleaseTiming = { idleMs: 1000, busyMs: 5000, drainedMs: 30_000, drainTimeoutMs: 50, pollMs: 250 }

function setup (release: () => Promise<void> = async () => {}) {
  const gate = new InferenceGate(2)
  let clock = 0
  const errors: unknown[] = []
  const releaser = new MemoryReleaser(gate, release, error => errors.push(error), TIMING, () => clock)
  return { gate, releaser, errors, advance: async (ms: number) => { clock += ms; await releaser.tick() } }
}

t.test('nothing ran: nothing is released however long the gate is idle', async t => {
  const { releaser, advance } = setup()
  for (let i = 0; i < 10; i++) await advance(1000)
  t.equal(releaser.count, 0)
})

t.test('after an inference, released once the gate has been idle for idleMs, and only once', async t => {
  const { gate, releaser, advance } = setup()
  const done = await gate.acquire()
  done()
  await advance(250)
  t.equal(releaser.count, 0, 'the inference was just seen')
  await advance(500)
  t.equal(releaser.count, 0, 'idle for 500 ms only')
  await advance(500)
  t.equal(releaser.count, 1, 'idle for 1000 ms')
  await advance(5000)
  t.equal(releaser.count, 1, 'nothing ran since')
})

t.test('under sustained load: released every busyMs, not when idle', async t => {
  const { gate, releaser, advance } = setup()
  const running = await gate.acquire()
  for (let ms = 0; ms < 4750; ms += 250) await advance(250)
  t.equal(releaser.count, 0, 'busy for less than busyMs')
  await advance(250)
  t.equal(releaser.count, 1, 'busy for busyMs')
  for (let ms = 0; ms < 5000; ms += 250) await advance(250)
  t.equal(releaser.count, 2, 'and again after another busyMs')
  running()
})

t.test('short inferences between two looks still count as activity', async t => {
  const { gate, releaser, advance } = setup()
  await advance(2000)
  const done = await gate.acquire()
  done()
  await advance(250)
  await advance(1000)
  t.equal(releaser.count, 1)
})

t.test('one release at a time: a tick during a slow release does not start another', async t => {
  let calls = 0
  let finish: () => void = () => {}
  const { gate, releaser, advance } = setup(async () => { calls++; await new Promise<void>(resolve => { finish = resolve }) })
  ;(await gate.acquire())()
  await advance(250)
  const first = advance(1000)
  ;(await gate.acquire())()
  await advance(250)
  await advance(6000)
  t.equal(calls, 1, 'the second waits for the first')
  finish()
  await first
  t.equal(releaser.count, 1)
  const second = advance(1000)
  t.equal(calls, 2, 'the activity seen meanwhile is released afterwards')
  finish()
  await second
  t.equal(releaser.count, 2)
})

t.test('a failing release is reported, and later activity is released again', async t => {
  let fail = true
  const { gate, releaser, errors, advance } = setup(async () => { if (fail) throw new Error('no memory for you') })
  ;(await gate.acquire())()
  await advance(250)
  await advance(1000)
  t.equal(errors.length, 1)
  t.match(String(errors[0]), /no memory for you/)
  fail = false
  ;(await gate.acquire())()
  await advance(250)
  await advance(1000)
  t.equal(releaser.count, 1)
})

t.test('under sustained load, every drainedMs the release waits for a quiet gate and holds new inferences back', async t => {
  const seen: Array<{ running: number }> = []
  const { gate, releaser, advance } = setup(async () => { seen.push({ running: gate.running }) })
  let running = await gate.acquire()
  // Keep the gate busy: every tick sees an inference in flight.
  for (let ms = 0; ms < 29_750; ms += 250) await advance(250)
  t.equal(releaser.count, 5, 'busy releases every busyMs')
  t.equal(releaser.wholeCount, 0)
  t.ok(seen.every(s => s.running === 1), 'made with the inference still running')
  const tick = advance(250)
  await new Promise(resolve => setImmediate(resolve))
  let late = false
  const waiting = gate.acquire().then(release => { late = true; return release })
  await new Promise(resolve => setImmediate(resolve))
  t.notOk(late, 'a new inference waits while the gate drains')
  running()
  await tick
  t.equal(releaser.wholeCount, 1, 'a whole release once the running inference ended')
  t.equal(seen[seen.length - 1].running, 0, 'made with no inference running')
  running = await waiting
  t.ok(late, 'the held inference starts after the release')
  running()
})

t.test('a drain that does not finish within drainTimeoutMs gives up: a busy release, the gate open again', async t => {
  const seen: number[] = []
  const { gate, releaser, advance } = setup(async () => { seen.push(gate.running) })
  const running = await gate.acquire()
  for (let ms = 0; ms < 30_000; ms += 250) await advance(250)
  t.equal(releaser.wholeCount, 0, 'the inference outlived the drain timeout')
  t.equal(releaser.count, 6)
  t.equal(seen[seen.length - 1], 1)
  const second = await gate.acquire()
  t.equal(gate.running, 2, 'new inferences are granted again')
  second()
  running()
})
