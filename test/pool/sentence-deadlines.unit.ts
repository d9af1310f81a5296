// Issue 43's order: a deadline for every sentence of a streamed answer
// (src/pool/sentence-deadlines.ts), a burst's first audio before audio not
// yet due, and whole answers by least attained service (served-time.ts).
// Time is an injected clock; the assertions are on which task goes next.

import t from 'tap'
import { Schedule, type Due, type Ticket } from '../../src/pool/schedule.js'
import { AnswerClock } from '../../src/pool/schedule-clock.js'
import { SentenceDeadlines } from '../../src/pool/sentence-deadlines.js'
import { ServedTime } from '../../src/pool/served-time.js'
import { InferenceGate } from '../../src/pool/inference-gate.js'
import { COMMON_SHARE, type Share } from '../../src/pool/share.js'

const RATE = 1000 // samples per second: one sample is one millisecond
const JITTER = 200

function fakeTime (): { now: () => number, set: (ms: number) => void } {
  let ms = 0
  return { now: () => ms, set: value => { ms = value } }
}

function share (name: string): Share {
  return { name, weight: 1 }
}

function task (request: number, sentence: number, due: Due, tenant: Share = COMMON_SHARE, served?: ServedTime): Ticket {
  return { order: [request, sentence, 0], tenant, due, ...(served === undefined ? {} : { served }) }
}

function drain<T> (schedule: Schedule<T>): T[] {
  const out: T[] = []
  for (let value = schedule.take(); value !== undefined; value = schedule.take()) out.push(value)
  return out
}

/** A streamed answer of sentences with these lengths (in samples, told as its encoder runs would). */
function answer (now: () => number, lengths: number[]): { clock: AnswerClock, deadlines: SentenceDeadlines } {
  const clock = new AnswerClock(now, true, RATE, JITTER)
  const deadlines = new SentenceDeadlines(clock)
  lengths.forEach((samples, s) => deadlines.expect(s, samples))
  return { clock, deadlines }
}

t.test('sentence k is due when its listener runs out of the audio of sentences 0..k-1', async t => {
  const time = fakeTime()
  time.set(1000)
  const { clock, deadlines } = answer(time.now, [1500, 2000, 800])
  t.equal(deadlines.due(0).deadline(), 1000, 'the first sentence: due at arrival')
  t.equal(deadlines.due(1).deadline(), 1000 + JITTER + 1500, 'before any audio, the next as if the first came now')
  t.equal(deadlines.due(2).deadline(), 1000 + JITTER + 3500)
  t.equal(deadlines.due(2).aheadMs?.(), 3500, 'its first chunk is sized for the audio heard before it')
  time.set(1100)
  clock.advance(300)
  t.equal(deadlines.due(0).deadline(), 1100 + JITTER + 300, 'the sentence being handed on: when the audio sent runs out')
  t.equal(deadlines.due(1).deadline(), 1100 + JITTER + 1500, 'the next: when the first sentence has played')
  t.equal(deadlines.due(2).deadline(), 1100 + JITTER + 3500)
  t.equal(deadlines.due(1).lead?.(), JITTER + 1500)
  t.equal(deadlines.due(1).aheadMs?.(), 1200, 'what of sentence 0 is still to be handed on')
  time.set(1200)
  clock.advance(1200)
  clock.advance(400)
  t.equal(deadlines.due(1).deadline(), 1100 + JITTER + 1900, 'its own audio sent moves it back as the answer\'s does')
  deadlines.expect(1, -500) // its encoder run told it was shorter
  t.equal(deadlines.due(2).deadline(), 1100 + JITTER + 3000)
})

t.test('a sentence\'s later chunks are due when the audio before each has been heard', async t => {
  const time = fakeTime()
  time.set(1000)
  const { clock, deadlines } = answer(time.now, [3000, 1000])
  clock.advance(400) // its first chunk handed on: the listener starts at 1000 + JITTER
  const start = 1000 + JITTER
  t.equal(deadlines.due(0, 400).deadline(), start + 400, 'the chunk after the first: when the first has played')
  t.equal(deadlines.due(0, 1200).deadline(), start + 1200, 'a chunk further in: that much later')
  t.equal(deadlines.due(0, 1200).aheadMs?.(), 800, 'sized for the audio before it not yet handed on')
  t.equal(deadlines.due(1, 0).deadline(), start + 3000, 'the next sentence as before')
  t.equal(deadlines.due(0, 0).deadline(), deadlines.due(0).deadline(), 'within 0 is the sentence\'s own deadline')
})

t.test('a crowd: another answer\'s first audio goes before a playing answer\'s chunk not yet due', async t => {
  const time = fakeTime()
  const playing = answer(time.now, [4000])
  time.set(100)
  playing.clock.advance(400) // heard from 300 (jitter 200): its first chunk plays until 700
  time.set(1000)
  const fresh = answer(time.now, [1000])
  const schedule = new Schedule<string>('deadline')
  // The playing answer's chunks as the pipeline queues them: one due at 700
  // (late), one 2,000 samples into the sentence, due at 2,300.
  schedule.add('playing, next chunk', { ...task(0, 0, playing.deadlines.due(0, 400)), order: [0, 0, 1] })
  schedule.add('playing, a later chunk', { ...task(0, 0, playing.deadlines.due(0, 2000)), order: [0, 0, 2] })
  schedule.add('fresh, first audio', task(1, 0, fresh.deadlines.due(0)))
  t.same(drain(schedule), ['playing, next chunk', 'fresh, first audio', 'playing, a later chunk'],
    'the chunk due now, then the new answer, then the chunk not due for 1.3 s')
})

t.test('a burst: every answer\'s first sentence before any answer\'s later sentences', async t => {
  const time = fakeTime()
  const a = answer(time.now, [1000, 1000, 1000])
  const b = answer(time.now, [1000, 1000])
  time.set(50)
  const schedule = new Schedule<string>('deadline')
  for (const s of [0, 1, 2]) schedule.add(`a${s}`, task(0, s, a.deadlines.due(s)))
  for (const s of [0, 1]) schedule.add(`b${s}`, task(1, s, b.deadlines.due(s)))
  t.same(drain(schedule), ['a0', 'b0', 'a1', 'b1', 'a2'], 'b\'s first sentence goes ahead of a\'s second and third')
})

t.test('a burst across tenants: a first chunk outranks audio not yet due, whatever the fair shares', async t => {
  const time = fakeTime()
  const playing = answer(time.now, [4000, 1000])
  playing.clock.advance(100) // heard from 200; 3.9 s of its first sentence still to come
  const schedule = new Schedule<string>('deadline')
  const busy = share('busy')
  const quiet = share('quiet')
  // The quiet tenant was served before: it is behind in the fair queue.
  schedule.charge(task(9, 0, playing.deadlines.due(0), quiet))
  schedule.charge(task(9, 0, playing.deadlines.due(0), quiet))
  time.set(150)
  schedule.add('busy-next-sentence', task(0, 1, playing.deadlines.due(1), busy))
  const fresh = answer(time.now, [1000])
  schedule.add('quiet-first-chunk', task(1, 0, fresh.deadlines.due(0), quiet))
  t.equal(schedule.peek()?.tenant.name, 'quiet', 'the new answer\'s first chunk goes first')
  t.same(drain(schedule), ['quiet-first-chunk', 'busy-next-sentence'])
})

t.test('between tenants, tasks that are due keep their fair shares', async t => {
  const time = fakeTime()
  const schedule = new Schedule<string>('deadline')
  const x = share('x')
  const y = share('y')
  schedule.charge(task(9, 0, answer(time.now, [1]).deadlines.due(0), y))
  schedule.add('y-first', task(1, 0, answer(time.now, [1000]).deadlines.due(0), y))
  schedule.add('x-first', task(2, 0, answer(time.now, [1000]).deadlines.due(0), x))
  t.same(drain(schedule), ['x-first', 'y-first'], 'x has had fewer slots')
})

t.test('whole answers: least attained service, so a short request goes before the long ones\' later sentences', async t => {
  const time = fakeTime()
  const schedule = new Schedule<string>('deadline')
  const served = [new ServedTime(), new ServedTime(), new ServedTime(), new ServedTime()]
  served.forEach((s, k) => s.add(400 + 100 * k)) // each long one had a few sentences
  for (let sentence = 5; sentence < 8; sentence++) {
    served.forEach((s, k) => schedule.add(`long${k}-${sentence}`, task(k, sentence, new AnswerClock(time.now, false, RATE, JITTER), COMMON_SHARE, s)))
  }
  time.set(500)
  const short = new ServedTime()
  schedule.add('short', task(4, 0, new AnswerClock(time.now, false, RATE, JITTER), COMMON_SHARE, short))
  t.equal(schedule.take(), 'short', 'the request served least goes next, though it is the youngest')
  t.equal(schedule.take(), 'long0-5', 'then the least served long one, its sentences in order')
  served[0].add(1000)
  t.equal(schedule.take(), 'long1-5', 'long0 has now had the most but one')
  const fifo = new Schedule<string>('fifo')
  fifo.add('long', task(0, 5, new AnswerClock(time.now, false, RATE, JITTER), COMMON_SHARE, served[3]))
  fifo.add('short', task(4, 0, new AnswerClock(time.now, false, RATE, JITTER), COMMON_SHARE, new ServedTime()))
  t.same(drain(fifo), ['long', 'short'], 'fifo keeps task order')
})

t.test('the gate charges the time a slot was held to its request', async t => {
  const time = fakeTime()
  const gate = new InferenceGate(1, 'deadline', time.now)
  const long = new ServedTime()
  const short = new ServedTime()
  const clock = new AnswerClock(time.now, false, RATE, JITTER)
  const release = await gate.acquire(undefined, task(0, 0, clock, COMMON_SHARE, long))
  const order: string[] = []
  const waiting = [
    gate.acquire(undefined, task(0, 1, clock, COMMON_SHARE, long)).then(r => { order.push('long'); r() }),
    gate.acquire(undefined, task(1, 0, clock, COMMON_SHARE, short)).then(r => { order.push('short'); r() })
  ]
  time.set(250)
  release()
  t.equal(long.servedMs, 250)
  await Promise.all(waiting)
  t.same(order, ['short', 'long'], 'the request that was served nothing yet goes first')
})
