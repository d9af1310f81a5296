// The process-wide limit on running inferences: never above its limit,
// slots in arrival order, an aborted waiter leaves the queue, a freed slot
// goes to its request's next work when queued in the same turn; a drain holds
// new grants back until the running ones end or it times out.

import t from 'tap'
import { InferenceGate } from '../../src/pool/inference-gate.js'
import { SynthesisCancelledError } from '../../src/engine/errors.js'
import type { Ticket } from '../../src/pool/schedule.js'
import { COMMON_SHARE as ANONYMOUS } from '../../src/pool/share.js'

/** A whole answer's task: these keep task order among themselves. */
function whole (order: readonly [number, number, number]): Ticket {
  return { order, tenant: ANONYMOUS, due: { streamed: false, deadline: () => 0 } }
}

t.test('never more slots than the limit; waiters get them in arrival order', async t => {
  const gate = new InferenceGate(2)
  const order: number[] = []
  const first = await gate.acquire()
  const second = await gate.acquire()
  const waiting = [3, 4, 5].map(n => gate.acquire().then(release => { order.push(n); return release }))
  t.equal(gate.running, 2)
  t.equal(gate.waiting, 3)
  first()
  first()
  const third = await waiting[0]
  t.equal(gate.running, 2, 'releasing twice gives back one slot')
  second()
  third()
  const rest = await Promise.all(waiting.slice(1))
  t.same(order, [3, 4, 5])
  for (const release of rest) release()
  t.equal(gate.running, 0)
  t.equal(gate.peak, 2)
})

t.test('many concurrent users never exceed the limit', async t => {
  const gate = new InferenceGate(3)
  let inside = 0
  let most = 0
  await Promise.all(Array.from({ length: 40 }, async (_, i) => {
    const release = await gate.acquire()
    inside++
    most = Math.max(most, inside)
    for (let k = 0; k < i % 4; k++) await Promise.resolve()
    inside--
    release()
  }))
  t.equal(most, 3)
  t.equal(gate.peak, 3)
})

t.test('an aborted waiter leaves the queue and the slot goes to the next', async t => {
  const gate = new InferenceGate(1)
  const held = await gate.acquire()
  const controller = new AbortController()
  const abandoned = gate.acquire(controller.signal)
  const next = gate.acquire()
  controller.abort()
  await t.rejects(abandoned, SynthesisCancelledError)
  t.equal(gate.waiting, 1)
  held()
  const release = await next
  t.equal(gate.running, 1)
  release()
  await t.rejects(gate.acquire(AbortSignal.abort()), SynthesisCancelledError, 'an already aborted signal gets no slot')
  t.equal(gate.running, 0)
})

t.test('the limit must be a positive integer', async t => {
  t.throws(() => new InferenceGate(0), RangeError)
})

t.test('waiters get slots in task order, earlier requests first, then arrivals without an order', async t => {
  const gate = new InferenceGate(1)
  const holder = await gate.acquire(undefined, whole([0, 0, 0]))
  const granted: string[] = []
  const wait = (label: string, order?: readonly [number, number, number]) =>
    gate.acquire(undefined, order === undefined ? undefined : whole(order)).then(release => { granted.push(label); release() })
  // Arrivals: a later request's sentence, an unordered task, then an earlier
  // request's second and first sentences, then a chunk of the first.
  const all = [wait('r3s0', [3, 0, 0]), wait('none'), wait('r1s1', [1, 1, 0]), wait('r1s0', [1, 0, 0]), wait('r1s0c1', [1, 0, 1])]
  t.equal(gate.waiting, 5)
  holder()
  await Promise.all(all)
  t.same(granted, ['r1s0', 'r1s0c1', 'r1s1', 'r3s0', 'none'])
})

t.test('a slot freed goes to the work its request queues in the same turn, before younger waiters', async t => {
  const gate = new InferenceGate(1)
  const sentence = await gate.acquire(undefined, whole([1, 0, 0]))
  const granted: string[] = []
  const wait = (label: string, order: readonly [number, number, number]) =>
    gate.acquire(undefined, whole(order)).then(release => { granted.push(label); release() })
  const younger = wait('r2s0', [2, 0, 0])
  // The sentence ends and its decoder chunk is queued at once, as the
  // pipeline does on the sentence's result.
  sentence()
  const chunk = wait('r1s0c1', [1, 0, 1])
  await Promise.all([younger, chunk])
  t.same(granted, ['r1s0c1', 'r2s0'])
  t.equal(gate.peak, 1)
})

t.test('streams by deadline, and a tenant\'s shares count the slots it took without waiting', async t => {
  const gate = new InferenceGate(1)
  const stream = (name: string, order: readonly [number, number, number], deadline: number): Ticket =>
    ({ order, tenant: { name, weight: 1 }, due: { streamed: true, deadline: () => deadline } })
  const holder = await gate.acquire(undefined, stream('a', [0, 0, 0], 0))
  const granted: string[] = []
  const wait = (label: string, ticket: Ticket) => gate.acquire(undefined, ticket).then(release => { granted.push(label); release() })
  const all = [wait('a-late', stream('a', [1, 0, 0], 900)), wait('a-soon', stream('a', [2, 0, 0], 100)), wait('b', stream('b', [3, 0, 0], 5000))]
  holder()
  await Promise.all(all)
  // a took a slot at once, so b (no slot yet) is next; then a's by deadline.
  t.same(granted, ['b', 'a-soon', 'a-late'])
  t.same([...gate.counts.granted], [['a', 3], ['b', 1]])
  t.equal(gate.counts.streamGrants, 4)
})

t.test('fifo mode: task order, deadlines and tenants ignored', async t => {
  const gate = new InferenceGate(1, 'fifo')
  const stream = (name: string, order: readonly [number, number, number], deadline: number): Ticket =>
    ({ order, tenant: { name, weight: 1 }, due: { streamed: true, deadline: () => deadline } })
  const holder = await gate.acquire(undefined, stream('a', [0, 0, 0], 0))
  const granted: string[] = []
  const wait = (label: string, ticket: Ticket) => gate.acquire(undefined, ticket).then(release => { granted.push(label); release() })
  const all = [wait('a2', stream('a', [2, 0, 0], 100)), wait('b3', stream('b', [3, 0, 0], 0)), wait('a1', stream('a', [1, 0, 0], 900))]
  holder()
  await Promise.all(all)
  t.same(granted, ['a1', 'a2', 'b3'])
})

t.test('a slot freed with nobody waiting is taken at once', async t => {
  const gate = new InferenceGate(1)
  ;(await gate.acquire())()
  const again = gate.acquire()
  t.equal(gate.waiting, 0, 'no wait for a free slot')
  ;(await again)()
  t.equal(gate.running, 0)
})

t.test('drain: no new grant until resume; resolves true once the running slots are back', async t => {
  const gate = new InferenceGate(2)
  const first = await gate.acquire()
  const second = await gate.acquire()
  let drained: boolean | undefined
  const draining = gate.drain(60_000).then(quiet => { drained = quiet })
  first()
  const granted: number[] = []
  const waiter = gate.acquire().then(release => { granted.push(1); return release })
  await new Promise(resolve => setImmediate(resolve))
  t.equal(gate.running, 1, 'the freed slot is not handed out')
  t.equal(drained, undefined, 'one inference still runs')
  second()
  await draining
  t.equal(drained, true)
  t.equal(gate.running, 0)
  t.same(granted, [], 'still held until resume')
  gate.resume()
  const release = await waiter
  t.same(granted, [1])
  release()
})

t.test('drain on an idle gate resolves at once; acquire waits until resume', async t => {
  const gate = new InferenceGate(1)
  t.equal(await gate.drain(60_000), true)
  let got = false
  const waiter = gate.acquire().then(release => { got = true; return release })
  await new Promise(resolve => setImmediate(resolve))
  t.notOk(got)
  gate.resume()
  ;(await waiter)()
  t.ok(got)
})

t.test('drain times out with slots still held: resolves false; resume grants the waiters in order', async t => {
  const gate = new InferenceGate(2)
  const held = await gate.acquire()
  t.equal(await gate.drain(10), false)
  const order: number[] = []
  const waiters = [1, 2].map(n => gate.acquire().then(release => { order.push(n); return release }))
  await new Promise(resolve => setImmediate(resolve))
  t.same(order, [])
  gate.resume()
  const firstRelease = await waiters[0]
  await new Promise(resolve => setImmediate(resolve))
  t.same(order, [1], 'one free slot')
  held()
  const secondRelease = await waiters[1]
  t.same(order, [1, 2])
  firstRelease()
  secondRelease()
})

t.test('held and waited seconds follow the injected clock', async t => {
  let now = 1000
  const gate = new InferenceGate(1, 'deadline', () => now)
  const first = await gate.acquire(undefined, undefined, 900)
  t.equal(gate.waitedSeconds, 0.1, 'a slot taken at once counts the wait since the caller queued it')
  const waiting = gate.acquire()
  now = 1250
  first()
  t.equal(gate.heldSeconds, 0.25)
  const second = await waiting
  t.equal(gate.waitedSeconds, 0.35, 'the second waited from 1000 to its grant at 1250')
  now = 1300
  second()
  second()
  t.equal(gate.heldSeconds, 0.3, 'a release counts once')
})

t.test('background work never takes the last free slot; work due soon finds it; background starts when its time comes', async t => {
  const now = 0
  const gate = new InferenceGate(2, 'deadline', () => now)
  const stream = (lead: number): Ticket => ({ order: [lead, 0, 0], tenant: ANONYMOUS, due: { streamed: true, deadline: () => now + lead, lead: () => lead } })
  const first = await gate.acquire(undefined, stream(5000))
  t.equal(gate.running, 1, 'background takes a slot while another stays free')
  let later = false
  const held = gate.acquire(undefined, stream(5000)).then(release => { later = true; return release })
  await new Promise(resolve => setImmediate(resolve))
  t.equal(later, false, 'a second background task does not take the last slot')
  const urgent = await gate.acquire(undefined, stream(0))
  t.equal(gate.running, 2, 'work due now takes the slot held free')
  urgent()
  first()
  const release = await held
  t.equal(later, true, 'with the slots free again, the background task runs')
  release()
  const fifo = new InferenceGate(2, 'fifo', () => now)
  const a = await fifo.acquire(undefined, stream(5000))
  const b = await fifo.acquire(undefined, stream(5000))
  t.equal(fifo.running, 2, 'fifo keeps no slot back')
  a()
  b()
})
