// The semaphore behind the spawner call limits: permits, arrival order, and
// waiters that leave on abort without taking a permit.

import t from 'tap'
import { Semaphore } from '../../src/tools/semaphore.js'

t.test('at most `permits` holders; the rest are served in arrival order', async (t) => {
  const semaphore = new Semaphore(2)
  const order: string[] = []
  const first = await semaphore.acquire()
  const second = await semaphore.acquire()
  const third = semaphore.acquire().then((release) => { order.push('third'); return release })
  const fourth = semaphore.acquire().then((release) => { order.push('fourth'); return release })
  t.equal(semaphore.held, 2)
  t.equal(semaphore.waiting, 2)
  second()
  second()
  const releaseThird = await third
  t.same(order, ['third'], 'releasing twice gives back one permit only')
  t.equal(semaphore.held, 2)
  first()
  ;(await fourth)()
  releaseThird()
  t.same(order, ['third', 'fourth'])
  t.equal(semaphore.held, 0)
})

t.test('an aborted waiter leaves the queue with the signal\'s reason', async (t) => {
  const semaphore = new Semaphore(1)
  const holder = await semaphore.acquire()
  const controller = new AbortController()
  const waiting = semaphore.acquire(controller.signal)
  const next = semaphore.acquire()
  controller.abort(new Error('gave up'))
  await t.rejects(waiting, { message: 'gave up' })
  t.equal(semaphore.waiting, 1)
  holder()
  ;(await next)()
  t.equal(semaphore.held, 0, 'the aborted waiter never held a permit')
  await t.rejects(semaphore.acquire(AbortSignal.abort(new Error('already'))), { message: 'already' })
})
