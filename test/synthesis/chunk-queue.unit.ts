// The hand-over between a response's synthesis and its reader: a producer
// waits while a byte budget is full and goes on when the reader takes bytes;
// a failure reaches the reader after the chunks made before it.

import t from 'tap'
import { ByteBudget } from '../../src/synthesis/byte-budget.js'
import { ChunkQueue } from '../../src/synthesis/chunk-queue.js'

const tick = async (): Promise<void> => await new Promise(resolve => setImmediate(resolve))

t.test('a producer waits once its budget is full, and goes on when the reader takes a chunk', async t => {
  const own = new ByteBudget(10)
  const queue = new ChunkQueue<string>([own], new AbortController().signal)
  const events: string[] = []
  const producer = (async () => {
    for (const item of ['a', 'b', 'c', 'd']) {
      await queue.push(item, 6)
      events.push(`made ${item}`)
    }
    queue.end()
  })()
  await tick()
  // 'a' (6 bytes) leaves room, 'b' passes the bound, 'c' waits.
  t.same(events, ['made a', 'made b'])
  t.equal(own.bytes, 12)
  events.push(`read ${await queue.next()}`)
  await tick()
  t.same(events, ['made a', 'made b', 'read a', 'made c'], 'room again (6 of 10 held): one more chunk, then a wait')
  await tick()
  t.equal(events.length, 4, 'd waits')
  events.push(`read ${await queue.next()}`)
  await tick()
  t.same(events.slice(4), ['read b', 'made d'])
  t.equal(await queue.next(), 'c')
  t.equal(await queue.next(), 'd')
  t.equal(await queue.next(), undefined, 'ended')
  await producer
  t.equal(own.bytes, 0, 'every byte given back')
  t.equal(queue.pushed, 4)
  t.equal(queue.taken, 4)
})

t.test('the process-wide budget holds back every queue', async t => {
  const shared = new ByteBudget(10)
  const signal = new AbortController().signal
  const first = new ChunkQueue<string>([new ByteBudget(100), shared], signal)
  const second = new ChunkQueue<string>([new ByteBudget(100), shared], signal)
  await first.push('a', 10)
  let made = false
  const waiting = second.push('b', 1).then(() => { made = true })
  await tick()
  t.notOk(made, 'the second response waits on the first one\'s unread bytes')
  t.equal(await first.next(), 'a')
  await waiting
  t.ok(made)
  t.equal(shared.bytes, 1)
})

t.test('an abort frees a waiting producer with the abort reason, and dropping gives the bytes back', async t => {
  const controller = new AbortController()
  const budget = new ByteBudget(1)
  const queue = new ChunkQueue<string>([budget], controller.signal)
  await queue.push('a', 5)
  const waiting = queue.push('b', 5)
  controller.abort(new Error('time is up'))
  await t.rejects(waiting, { message: 'time is up' })
  queue.drop()
  t.equal(budget.bytes, 0)
})

t.test('a failure reaches the reader after the chunks made before it', async t => {
  const queue = new ChunkQueue<string>([new ByteBudget(100)], new AbortController().signal)
  await queue.push('a', 1)
  queue.fail(new Error('broken'))
  t.equal(await queue.next(), 'a')
  await t.rejects(queue.next(), { message: 'broken' })
})
