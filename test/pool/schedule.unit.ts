// The order in which waiting inferences run (src/pool/schedule.ts) and the
// playback clocks it reads (schedule-clock.ts): earliest deadline first within
// a tenant, whole answers in task order, weighted fair shares between
// tenants, first come first served in 'fifo'. Time is an injected clock;
// the assertions are on order and counters.

import t from 'tap'
import { Schedule, type Ticket } from '../../src/pool/schedule.js'
import { AnswerClock } from '../../src/pool/schedule-clock.js'
import { COMMON_SHARE as ANONYMOUS, type Share as Tenant } from '../../src/pool/share.js'

const RATE = 1000 // samples per second: one sample is one millisecond
const JITTER = 200

function fakeTime (): { now: () => number, set: (ms: number) => void } {
  let ms = 0
  return { now: () => ms, set: value => { ms = value } }
}

function ticket (request: number, clock: AnswerClock, tenant: Tenant = ANONYMOUS, sentence = 0, chunk = 0): Ticket {
  return { order: [request, sentence, chunk], tenant, due: clock }
}

function drain<T> (schedule: Schedule<T>): T[] {
  const out: T[] = []
  for (let value = schedule.take(); value !== undefined; value = schedule.take()) out.push(value)
  return out
}

t.test('the clock: a stream is due at arrival until its first audio, then when its listener runs out', async t => {
  const time = fakeTime()
  time.set(1000)
  const stream = new AnswerClock(time.now, true, RATE, JITTER)
  t.equal(stream.deadline(), 1000, 'first audio is due at arrival')
  time.set(1400)
  stream.advance(0)
  t.equal(stream.deadline(), 1000, 'no audio, no start')
  stream.advance(300)
  t.equal(stream.deadline(), 1400 + JITTER + 300, 'played from first audio plus the jitter allowance, through what was sent')
  time.set(1500)
  stream.advance(700)
  t.equal(stream.deadline(), 1400 + JITTER + 1000)
  t.equal(stream.audioSeconds, 1)

  const whole = new AnswerClock(time.now, false, RATE, JITTER)
  t.equal(whole.deadline(), 1500, 'a whole answer: its arrival')
  time.set(3000)
  whole.advance(400)
  t.equal(whole.deadline(), 1900, 'plus the audio made for it, as if heard from its arrival')
})

t.test('within a tenant: earliest deadline first; a new answer\'s first audio before streams with audio buffered, after one running dry', async t => {
  const time = fakeTime()
  const playing = new AnswerClock(time.now, true, RATE, JITTER)
  playing.advance(5000) // 5 s sent at 0: due at 5,200
  time.set(1000)
  const dry = new AnswerClock(time.now, true, RATE, JITTER)
  dry.advance(100) // first audio at 1,000: due at 1,300
  time.set(2000)
  const fresh = new AnswerClock(time.now, true, RATE, JITTER) // due at 2,000
  time.set(2500)
  const schedule = new Schedule<string>('deadline')
  schedule.add('playing', ticket(0, playing))
  schedule.add('fresh', ticket(2, fresh))
  schedule.add('dry', ticket(1, dry))
  t.same(drain(schedule), ['dry', 'fresh', 'playing'])
  t.equal(schedule.counts.streamGrants, 3)
})

t.test('deadlines are read when picking: audio sent while waiting moves a stream back', async t => {
  const time = fakeTime()
  const a = new AnswerClock(time.now, true, RATE, JITTER)
  const b = new AnswerClock(time.now, true, RATE, JITTER)
  a.advance(100) // due 300
  b.advance(200) // due 400
  const schedule = new Schedule<string>('deadline')
  schedule.add('a', ticket(0, a, ANONYMOUS, 1))
  schedule.add('b', ticket(1, b, ANONYMOUS, 1))
  a.advance(1000) // a's earlier sentence went out: due 1,300
  t.same(drain(schedule), ['b', 'a'])
})

t.test('equal deadlines go in task order: a request\'s chunks in order', async t => {
  const time = fakeTime()
  const clock = new AnswerClock(time.now, true, RATE, JITTER)
  const schedule = new Schedule<string>('deadline')
  schedule.add('s1', ticket(0, clock, ANONYMOUS, 1, 0))
  schedule.add('s0c2', ticket(0, clock, ANONYMOUS, 0, 2))
  schedule.add('s0c1', ticket(0, clock, ANONYMOUS, 0, 1))
  t.same(drain(schedule), ['s0c1', 's0c2', 's1'])
})

t.test('whole answers keep task order among themselves, and meet streams by their made-audio deadline', async t => {
  const time = fakeTime()
  const oldWhole = new AnswerClock(time.now, false, RATE, JITTER)
  oldWhole.advance(3000) // arrived at 0, 3 s made: due 3,000
  time.set(100)
  const youngWhole = new AnswerClock(time.now, false, RATE, JITTER) // due 100, but younger
  const buffered = new AnswerClock(time.now, true, RATE, JITTER)
  buffered.advance(10_000) // due 10,300
  time.set(2000)
  const dry = new AnswerClock(time.now, true, RATE, JITTER)
  dry.advance(500) // due 2,700
  const schedule = new Schedule<string>('deadline')
  schedule.add('young', ticket(5, youngWhole))
  schedule.add('buffered', ticket(1, buffered))
  schedule.add('old', ticket(2, oldWhole))
  schedule.add('dry', ticket(3, dry))
  // The oldest whole answer (due 3,000) goes after the stream about to run
  // dry (2,700), before the one with seconds buffered; the younger whole
  // answer waits for the older one although its own deadline is earlier.
  t.same(drain(schedule), ['dry', 'old', 'young', 'buffered'])
  t.equal(schedule.counts.wholeGrants, 2)
  t.equal(schedule.counts.streamGrants, 2)
})

t.test('fifo: task order only, whatever the deadlines and tenants', async t => {
  const time = fakeTime()
  const late = new AnswerClock(time.now, true, RATE, JITTER)
  late.advance(60_000)
  const soon = new AnswerClock(time.now, true, RATE, JITTER)
  const schedule = new Schedule<string>('fifo')
  schedule.add('r2', ticket(2, soon, { name: 'b', weight: 5 }))
  schedule.add('r0', ticket(0, late, { name: 'a', weight: 1 }))
  schedule.add('r1', ticket(1, late, { name: 'a', weight: 1 }))
  t.same(drain(schedule), ['r0', 'r1', 'r2'])
  t.same([...schedule.counts.granted], [['anonymous', 3]], 'one queue: tenants are not told apart')
})

/** Slots granted one at a time; each tenant keeps `waiting[name]` tasks queued (a busy bot re-queues at once). */
function simulate (schedule: Schedule<string>, tenants: Array<{ tenant: Tenant, waiting: number }>, grants: number): Map<string, number> {
  const time = fakeTime()
  let request = 0
  for (const { tenant, waiting } of tenants) {
    for (let i = 0; i < waiting; i++) schedule.add(tenant.name, ticket(request++, new AnswerClock(time.now, true, RATE, JITTER), tenant))
  }
  const byTenant = new Map(tenants.map(({ tenant }) => [tenant.name, tenant]))
  const got = new Map<string, number>()
  for (let i = 0; i < grants; i++) {
    const name = schedule.take() as string
    got.set(name, (got.get(name) ?? 0) + 1)
    schedule.add(name, ticket(request++, new AnswerClock(time.now, true, RATE, JITTER), byTenant.get(name)))
  }
  return got
}

t.test('fair shares: one tenant with 32 streams and four with one each get equal slots', async t => {
  const big = { name: 'big', weight: 1 }
  const smalls = ['s1', 's2', 's3', 's4'].map(name => ({ tenant: { name, weight: 1 }, waiting: 1 }))
  const got = simulate(new Schedule<string>('deadline'), [{ tenant: big, waiting: 32 }, ...smalls], 100)
  t.same(Object.fromEntries(got), { big: 20, s1: 20, s2: 20, s3: 20, s4: 20 })
  // First come first served gives the small ones a slot only after the big one's 32 queued tasks.
  const fifo = simulate(new Schedule<string>('fifo'), [{ tenant: big, waiting: 32 }, ...smalls], 100)
  t.ok((fifo.get('big') ?? 0) > 60, `fifo: big took ${fifo.get('big') ?? 0} of 100`)
})

t.test('fair shares follow weights', async t => {
  const got = simulate(new Schedule<string>('deadline'), [{ tenant: { name: 'heavy', weight: 2 }, waiting: 3 }, { tenant: { name: 'light', weight: 1 }, waiting: 3 }], 30)
  t.same(Object.fromEntries(got), { heavy: 20, light: 10 })
})

t.test('an idle tenant banks no credit; a busy one\'s use still counts after a pause', async t => {
  const time = fakeTime()
  const clock = new AnswerClock(time.now, true, RATE, JITTER)
  const a = { name: 'a', weight: 1 }
  const b = { name: 'b', weight: 1 }
  const schedule = new Schedule<string>('deadline')
  // a alone takes 10 slots (some without waiting: charge()).
  for (let i = 0; i < 5; i++) schedule.charge(ticket(i, clock, a))
  for (let i = 5; i < 10; i++) schedule.add('a', ticket(i, clock, a))
  t.equal(drain(schedule).length, 5)
  // b arrives with 4 tasks and a with 4 more: they alternate, b is not owed 10.
  for (let i = 0; i < 4; i++) {
    schedule.add('b', ticket(20 + i, clock, b))
    schedule.add('a', ticket(30 + i, clock, a))
  }
  t.same(drain(schedule), ['b', 'a', 'b', 'a', 'b', 'a', 'b', 'a'])
  t.same(Object.fromEntries(schedule.counts.granted), { a: 14, b: 4 })
})

t.test('remove takes a waiter out; tasks without a ticket go after all with one', async t => {
  const time = fakeTime()
  const clock = new AnswerClock(time.now, true, RATE, JITTER)
  const schedule = new Schedule<string>('deadline')
  schedule.add('probe', undefined)
  schedule.add('x', ticket(0, clock))
  schedule.add('y', ticket(1, clock, { name: 'other', weight: 1 }))
  t.equal(schedule.size, 3)
  t.equal(schedule.remove('x'), true)
  t.equal(schedule.remove('x'), false, 'only once')
  t.same(drain(schedule), ['y', 'probe'])
  t.equal(schedule.size, 0)
  t.equal(schedule.take(), undefined)
})

t.test('a bad weight counts as 1 instead of breaking the order', async t => {
  const got = simulate(new Schedule<string>('deadline'), [{ tenant: { name: 'nan', weight: Number.NaN }, waiting: 2 }, { tenant: { name: 'one', weight: 1 }, waiting: 2 }], 10)
  t.same(Object.fromEntries(got), { nan: 5, one: 5 })
})
