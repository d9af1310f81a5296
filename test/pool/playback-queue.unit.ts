// Answers one listener hears in order (a reply's sentences as separate
// requests, a WebSocket context's pieces): each plays after the one before
// it, so the scheduler dates it from that one's playback end, not from its
// own arrival (schedule-clock.ts). Time is an injected clock.

import t from 'tap'
import { NEW_ANSWER_WAIT_MS, PROTECT_LEAD_MS, Schedule, type Ticket } from '../../src/pool/schedule.js'
import { AnswerClock, leadMs, PlaybackQueue } from '../../src/pool/schedule-clock.js'
import { COMMON_SHARE as ANONYMOUS } from '../../src/pool/share.js'

const RATE = 1000 // one sample is one millisecond
const JITTER = 200

function fakeTime (): { now: () => number, set: (ms: number) => void } {
  let ms = 0
  return { now: () => ms, set: value => { ms = value } }
}

function ticket (request: number, clock: AnswerClock): Ticket {
  return { order: [request, 0, 0], tenant: ANONYMOUS, due: clock }
}

t.test('a second sentence is due when the first has played, and its listener starts then', async t => {
  const time = fakeTime()
  const queue = new PlaybackQueue()
  time.set(1000)
  const first = queue.next(time.now, true, RATE, JITTER)
  time.set(1100)
  const second = queue.next(time.now, true, RATE, JITTER)
  t.equal(first.deadline(), 1000, 'the first is due at its arrival')
  t.equal(second.deadline(), 1300, 'before the first has audio: not before the first could start playing (now plus the jitter allowance)')
  first.expect(1500)
  t.equal(second.deadline(), 2800, 'the first\'s length is known from its encoder run: due when it will have played')
  time.set(1300)
  first.advance(500) // heard from 1,500; 1,500 ms in all
  t.equal(second.deadline(), 3000, 'due when the first will have played')
  t.equal(leadMs(second, time.now()), 1700, 'the audio its listener hears before it')
  time.set(1600)
  second.advance(500)
  t.equal(second.listenerStart(), 3000, 'its own first audio came early: it is still heard after the first')
  t.equal(second.deadline(), 3500)
  first.advance(1500) // the first turned out longer than known
  t.equal(second.deadline(), 4000, 'the second moves back with it')
  first.finish()
  time.set(9000)
  t.equal(second.deadline(), 4000, 'a finished answer\'s end is kept')
})

t.test('a sentence heard later waits behind the one being heard', async t => {
  const time = fakeTime()
  const queue = new PlaybackQueue()
  const first = queue.next(time.now, true, RATE, JITTER)
  const second = queue.next(time.now, true, RATE, JITTER)
  first.advance(1000) // heard from 200; runs dry at 1200
  time.set(250)
  const other = new AnswerClock(time.now, true, RATE, JITTER) // a new answer: due at 250
  const schedule = new Schedule<string>('deadline')
  schedule.add('second, first chunk', ticket(1, second))
  schedule.add('first, next chunk', ticket(0, first))
  schedule.add('a new answer', ticket(2, other))
  t.same([schedule.take(), schedule.take(), schedule.take()], ['a new answer', 'first, next chunk', 'second, first chunk'],
    'with 950 ms still to hear, the new answer\'s first audio goes first')
})

t.test('a reply being heard that runs dry within PROTECT_LEAD_MS goes ahead of new answers', async t => {
  const time = fakeTime()
  const queue = new PlaybackQueue()
  const first = queue.next(time.now, true, RATE, JITTER)
  const second = queue.next(time.now, true, RATE, JITTER)
  first.advance(300) // heard from 200; runs dry at 500
  time.set(250)
  const other = new AnswerClock(time.now, true, RATE, JITTER) // a new answer: due at 250
  t.ok(first.urgent(), 'its listener runs dry in 250 ms')
  t.ok(second.urgent(), 'the sentence after it is heard at 500 too')
  t.notOk(other.urgent(), 'a new answer has not waited long')
  const schedule = new Schedule<string>('deadline')
  schedule.add('second, first chunk', ticket(1, second))
  schedule.add('first, next chunk', ticket(0, first))
  schedule.add('a new answer', ticket(2, other))
  t.same([schedule.take(), schedule.take(), schedule.take()], ['first, next chunk', 'second, first chunk', 'a new answer'])
  time.set(250 + NEW_ANSWER_WAIT_MS)
  t.ok(other.urgent(), `after ${NEW_ANSWER_WAIT_MS} ms a new answer is urgent too, and its early deadline counts again`)
  t.notOk(new AnswerClock(time.now, false, RATE, JITTER).urgent(), 'a whole answer never is')
})

t.test('before anyone hears a reply, its sentences are not urgent', async t => {
  const time = fakeTime()
  const queue = new PlaybackQueue()
  const first = queue.next(time.now, true, RATE, JITTER)
  const second = queue.next(time.now, true, RATE, JITTER)
  t.notOk(first.urgent())
  t.notOk(second.urgent())
  first.advance(100)
  t.ok(second.urgent(), 'once the first is heard, the second runs dry with it')
  time.set(100 + PROTECT_LEAD_MS)
  first.advance(5000)
  t.notOk(second.urgent(), `more than ${PROTECT_LEAD_MS} ms ahead: not yet`)
})

t.test('without a queue, a stream is dated from its own arrival as before', async t => {
  const time = fakeTime()
  time.set(50)
  const alone = new AnswerClock(time.now, true, RATE, JITTER)
  t.equal(alone.deadline(), 50)
  t.equal(leadMs(alone, 80), 0, 'late: no lead')
})

t.test('the audio ahead in the queue: what the answers before it have still to hand on, lateness aside', async t => {
  const time = fakeTime()
  const queue = new PlaybackQueue()
  const first = queue.next(time.now, true, RATE, JITTER)
  const second = queue.next(time.now, true, RATE, JITTER)
  const third = queue.next(time.now, true, RATE, JITTER)
  first.expect(3000)
  second.expect(1000)
  t.equal(third.aheadMs(), 4000, 'both answers before it, before any audio')
  first.advance(2500)
  time.set(10_000) // far behind: the audio ahead is still what is to come
  t.equal(third.aheadMs(), 1500)
  t.equal(first.aheadMs(), 0, 'nothing is ahead of the first')
})
