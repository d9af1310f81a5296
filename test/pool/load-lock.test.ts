// The load lock: one holder at a time across worker threads, released on
// failure too.

import { Worker } from 'node:worker_threads'
import t from 'tap'
import { newLoadLock, withLoadLock } from '../../src/pool/load-lock.js'

t.test('holders in one thread take turns; a failing holder releases the lock', async t => {
  const lock = newLoadLock()
  const events: string[] = []
  let releaseFirst: () => void = () => {}
  const first = withLoadLock(lock, async () => {
    events.push('first in')
    await new Promise<void>(resolve => { releaseFirst = resolve })
    events.push('first out')
  })
  const second = withLoadLock(lock, async () => { events.push('second in'); throw new Error('load failed') })
  const third = withLoadLock(lock, async () => { events.push('third in') })
  await new Promise(resolve => setTimeout(resolve, 20))
  t.same(events, ['first in'], 'the others wait while the first holds it')
  releaseFirst()
  await first
  await t.rejects(second, /load failed/)
  await third
  t.same(events, ['first in', 'first out', 'second in', 'third in'])
  t.equal(new Int32Array(lock)[0], 0, 'free at the end')
})

t.test('across threads: two workers never hold it at once', async t => {
  const lock = newLoadLock()
  const inside = new SharedArrayBuffer(8)
  // Each worker takes the lock 20 times, counting holders while inside.
  const source = `
    const { workerData, parentPort } = require('node:worker_threads')
    const cells = new Int32Array(workerData.inside)
    const lock = new Int32Array(workerData.lock)
    const waitAsync = Atomics.waitAsync
    ;(async () => {
      for (let i = 0; i < 20; i++) {
        while (Atomics.compareExchange(lock, 0, 0, 1) !== 0) { const w = waitAsync(lock, 0, 1); if (w.async) { const k = setInterval(() => {}, 60000); await w.value; clearInterval(k) } }
        const now = Atomics.add(cells, 0, 1) + 1
        if (now > Atomics.load(cells, 1)) Atomics.store(cells, 1, now)
        await new Promise(resolve => setTimeout(resolve, 1))
        Atomics.sub(cells, 0, 1)
        Atomics.store(lock, 0, 0); Atomics.notify(lock, 0)
      }
      parentPort.postMessage('done')
    })()`
  // The main thread takes part through withLoadLock itself.
  const workers = [0, 1].map(() => new Worker(source, { eval: true, workerData: { lock, inside } }))
  const cells = new Int32Array(inside)
  const mine = (async () => {
    for (let i = 0; i < 20; i++) {
      await withLoadLock(lock, async () => {
        const now = Atomics.add(cells, 0, 1) + 1
        if (now > Atomics.load(cells, 1)) Atomics.store(cells, 1, now)
        await new Promise(resolve => setTimeout(resolve, 1))
        Atomics.sub(cells, 0, 1)
      })
    }
  })()
  await Promise.all([mine, ...workers.map(async w => await new Promise(resolve => w.once('message', resolve)))])
  await Promise.all(workers.map(async w => await w.terminate()))
  t.equal(Atomics.load(cells, 1), 1, 'never more than one holder')
})
