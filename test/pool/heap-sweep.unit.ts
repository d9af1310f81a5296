// The main thread's garbage is collected once after a burst of voice
// changes: requests within the delay make one collection, after the last of
// them; stop() cancels a pending one; a failing collection is reported and
// does not stop the next; and collectGarbage() really collects. Time is a
// clock of the test's own, moved by hand.

import { runInNewContext } from 'node:vm'
import t from 'tap'
import { collectGarbage, HeapSweep, type Schedule } from '../../src/engine/memory/index.js'

const DELAY_MS = 1000

/** Timers on a clock that moves only when advance() is called. */
class ManualClock {
  now = 0
  private timers: Array<{ at: number, run: () => void }> = []

  readonly schedule: Schedule = (run, ms) => {
    const timer = { at: this.now + ms, run }
    this.timers.push(timer)
    return () => { this.timers = this.timers.filter(other => other !== timer) }
  }

  get pending (): number {
    return this.timers.length
  }

  /** Moves the clock on by `ms`, running the timers that fall due, in time order. */
  advance (ms: number): void {
    const until = this.now + ms
    for (;;) {
      const due = this.timers.filter(timer => timer.at <= until).sort((a, b) => a.at - b.at)[0]
      if (due === undefined) break
      this.timers = this.timers.filter(timer => timer !== due)
      this.now = due.at
      due.run()
    }
    this.now = until
  }
}

function setup (collect: () => void = () => {}) {
  const clock = new ManualClock()
  const events: string[] = []
  const sweep = new HeapSweep(error => events.push(`error at ${clock.now}: ${(error as Error).message}`), {
    delayMs: DELAY_MS,
    schedule: clock.schedule,
    collect: () => {
      events.push(`collect at ${clock.now}`)
      collect()
    }
  })
  return { clock, events, sweep }
}

t.test('requests within the delay make one collection, delayMs after the last of them', async t => {
  const { clock, events, sweep } = setup()
  sweep.request()
  clock.advance(DELAY_MS - 1)
  sweep.request()
  t.equal(clock.pending, 1, 'the second request replaced the first timer')
  clock.advance(DELAY_MS - 1)
  t.same(events, [], 'nothing yet: the second request moved the collection on')
  clock.advance(1)
  t.same(events, [`collect at ${2 * DELAY_MS - 1}`])
  t.equal(sweep.count, 1)
  t.equal(clock.pending, 0)
  clock.advance(10 * DELAY_MS)
  t.equal(sweep.count, 1, 'no request, no collection')
  sweep.request()
  clock.advance(DELAY_MS)
  t.same(events, [`collect at ${2 * DELAY_MS - 1}`, `collect at ${13 * DELAY_MS - 1}`], 'a later burst collects again')
  t.equal(sweep.count, 2)
})

t.test('stop() cancels a pending collection; a request after it collects again', async t => {
  const { clock, events, sweep } = setup()
  sweep.request()
  sweep.stop()
  t.equal(clock.pending, 0)
  clock.advance(5 * DELAY_MS)
  t.same(events, [])
  t.equal(sweep.count, 0)
  sweep.stop()
  t.pass('stopping twice is harmless')
  sweep.request()
  clock.advance(DELAY_MS)
  t.same(events, [`collect at ${6 * DELAY_MS}`])
})

t.test('a failing collection goes to onError, is not counted, and the next one still happens', async t => {
  let fail = true
  const { clock, events, sweep } = setup(() => { if (fail) throw new Error('no collection today') })
  sweep.request()
  clock.advance(DELAY_MS)
  t.same(events, [`collect at ${DELAY_MS}`, `error at ${DELAY_MS}: no collection today`], 'the error is reported right after the attempt')
  t.equal(sweep.count, 0, 'a failed collection is not counted')
  fail = false
  sweep.request()
  clock.advance(DELAY_MS)
  t.same(events.slice(2), [`collect at ${2 * DELAY_MS}`])
  t.equal(sweep.count, 1)
})

t.test('collectGarbage() collects an unreachable object', async t => {
  let finalized = false
  const registry = new FinalizationRegistry<string>(() => { finalized = true })
  ;(() => { registry.register({ payload: new Array(1000).fill(0) }, 'garbage') })()
  // Finalizers run in a later task; bounded in count.
  for (let i = 0; i < 50 && !finalized; i++) {
    collectGarbage()
    await new Promise(resolve => setImmediate(resolve))
  }
  t.ok(finalized, 'the object was collected')
})

t.test('collectGarbage() gives the main thread no global gc; contexts made later have one', async t => {
  collectGarbage()
  collectGarbage()
  t.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined')
  t.equal(runInNewContext('typeof gc'), 'function', 'the flag is set once and left set (heap-sweep.ts)')
})
