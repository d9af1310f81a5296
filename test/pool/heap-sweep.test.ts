// The main thread's garbage is collected once after a burst of voice
// changes: requests within the delay make one collection, stop() cancels a
// pending one, a failing collection is reported and does not stop the next,
// and collectGarbage() really collects without leaving `gc` exposed.

import { runInNewContext } from 'node:vm'
import t from 'tap'
import { collectGarbage, HeapSweep } from '../../src/engine/memory/index.js'

const DELAY_MS = 20
const sleep = async (ms: number): Promise<void> => { await new Promise(resolve => setTimeout(resolve, ms)) }

t.test('requests within the delay make one collection, after the last of them', async t => {
  let collections = 0
  const sweep = new HeapSweep(error => { throw error }, DELAY_MS, () => { collections++ })
  sweep.request()
  await sleep(DELAY_MS / 2)
  sweep.request()
  await sleep(DELAY_MS / 2)
  t.equal(collections, 0, 'the second request moved the collection on')
  await sleep(DELAY_MS * 5)
  t.equal(collections, 1)
  t.equal(sweep.count, 1)
  sweep.request()
  await sleep(DELAY_MS * 5)
  t.equal(collections, 2, 'a later burst collects again')
})

t.test('stop() cancels a pending collection', async t => {
  let collections = 0
  const sweep = new HeapSweep(error => { throw error }, DELAY_MS, () => { collections++ })
  sweep.request()
  sweep.stop()
  await sleep(DELAY_MS * 5)
  t.equal(collections, 0)
  t.equal(sweep.count, 0)
})

t.test('a failing collection goes to onError, and the next one still happens', async t => {
  const errors: unknown[] = []
  let fail = true
  const sweep = new HeapSweep(error => errors.push(error), DELAY_MS, () => {
    if (fail) throw new Error('no collection today')
  })
  sweep.request()
  await sleep(DELAY_MS * 5)
  t.equal(errors.length, 1)
  t.match(errors[0], { message: 'no collection today' })
  t.equal(sweep.count, 0, 'a failed collection is not counted')
  fail = false
  sweep.request()
  await sleep(DELAY_MS * 5)
  t.equal(sweep.count, 1)
  t.equal(errors.length, 1)
})

t.test('collectGarbage() collects an unreachable object', async t => {
  let finalized = false
  const registry = new FinalizationRegistry<string>(() => { finalized = true })
  ;(() => { registry.register({ payload: new Array(1000).fill(0) }, 'garbage') })()
  // Finalizers run in a later task; bounded in count.
  for (let i = 0; i < 50 && !finalized; i++) {
    collectGarbage()
    await sleep(10)
  }
  t.ok(finalized, 'the object was collected')
})

t.test('collectGarbage() leaves gc unexposed to new contexts', async t => {
  collectGarbage()
  t.equal(runInNewContext('typeof gc'), 'undefined')
  t.equal(typeof (globalThis as { gc?: unknown }).gc, 'undefined')
})
