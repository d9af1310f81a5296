// A streamed sentence's first chunk covers the wait for its stream's next
// turn (src/pool/voice-pool.ts queueWaitMs): the tasks due now and waiting,
// at the slots' recent mean task time. Counters and arithmetic only.

import t from 'tap'
import { queueWaitMs } from '../../src/pool/voice-pool.js'
import { Schedule } from '../../src/pool/schedule.js'
import { AnswerClock } from '../../src/pool/schedule-clock.js'
import { CostMeter } from '../../src/pool/cost-meter.js'
import { COMMON_SHARE } from '../../src/pool/share.js'
import { DEFAULT_CHUNKING, planChunks } from '../../src/engine/chunking.js'

const RATE = 1000
const JITTER = 200

t.test('the wait: tasks due now times the mean task time, over the slots', async t => {
  t.equal(queueWaitMs({ due: 6, meanTaskMs: 200, slots: 2 }), 600)
  t.equal(queueWaitMs({ due: 0, meanTaskMs: 200, slots: 2 }), 0, 'nothing waits: no wait')
  t.equal(queueWaitMs({ due: 6, meanTaskMs: 0, slots: 2 }), 0, 'no task measured yet')
  t.equal(queueWaitMs({ due: 6, meanTaskMs: 200, slots: 0 }), 0, 'a bad slot count is no wait, not Infinity')
})

t.test('only tasks due now count: a stream\'s audio not needed yet waits itself', async t => {
  let ms = 0
  const now = (): number => ms
  const fresh = new AnswerClock(now, true, RATE, JITTER) // a new answer: due at arrival
  const buffered = new AnswerClock(now, true, RATE, JITTER)
  buffered.advance(5000) // heard from 200 to 5,200: not due
  const running = new AnswerClock(now, true, RATE, JITTER)
  running.advance(300) // runs dry at 500: urgent
  const whole = new AnswerClock(now, false, RATE, JITTER)
  ms = 100
  const schedule = new Schedule<string>('deadline')
  schedule.add('fresh', { order: [0, 0, 0], tenant: COMMON_SHARE, due: fresh })
  schedule.add('buffered', { order: [1, 0, 0], tenant: COMMON_SHARE, due: buffered })
  schedule.add('running', { order: [2, 0, 0], tenant: COMMON_SHARE, due: running })
  schedule.add('whole', { order: [3, 0, 0], tenant: COMMON_SHARE, due: whole })
  t.equal(schedule.size, 4)
  t.equal(schedule.dueCount, 3)
  t.equal(new Schedule<string>('fifo').dueCount, 0)
  schedule.take()
  t.equal(schedule.dueCount, 2, 'a task taken no longer counts')
})

t.test('the mean task time follows the recent tasks', async t => {
  const meter = new CostMeter()
  t.equal(meter.meanTaskMs(), 0, 'before any task')
  meter.observe(100, 1)
  meter.observe(300, 0)
  t.equal(meter.meanTaskMs(), (100 * 0.98 + 300) / (0.98 + 1))
})

t.test('a first chunk sized for the wait covers it: larger than the idle 32 frames', async t => {
  const frameMs = 256 / 22050 * 1000
  const idle = planChunks(300, DEFAULT_CHUNKING, { stream: true, parallelism: 1, marginFrames: 32, leadFrames: 0 })
  const crowd = planChunks(300, DEFAULT_CHUNKING, { stream: true, parallelism: 1, marginFrames: 32, leadFrames: Math.floor(queueWaitMs({ due: 6, meanTaskMs: 200, slots: 2 }) / frameMs) })
  t.equal(idle[0].end, DEFAULT_CHUNKING.firstChunkFrames)
  t.ok(crowd[0].end * frameMs >= 600, `the first chunk plays ${Math.round(crowd[0].end * frameMs)} ms, at least the 600 ms wait`)
  t.ok(crowd.length < idle.length, 'and the sentence takes fewer chunks')
})
