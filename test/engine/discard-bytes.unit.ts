// discardBytes detaches what it may free, and only that; owning() and
// transferList() hand arrays on whole. That beforeIdle resolves once the
// memory has gone is measured in test/leak/discard-bytes.leak.ts.

import t from 'tap'
import { beforeIdle, discardBytes, owning, transferList } from '../../src/engine/memory/index.js'

t.test('arrays that own their buffer are detached; views into a larger buffer are left alone', async t => {
  const whole = new Uint8Array(1 << 20).fill(7)
  const shared = new Uint8Array(1 << 16)
  const view = shared.subarray(16, 32)
  const empty = new Uint8Array(0)
  discardBytes([whole, whole, view, empty])
  t.equal(whole.byteLength, 0, 'the owning array reads as empty')
  t.equal(whole.buffer.byteLength, 0, 'its buffer is detached')
  t.equal(view.byteLength, 16, 'a view is not freed with its neighbours')
  t.equal(shared.byteLength, 1 << 16)
  t.equal(empty.byteLength, 0)
})

t.test('an untransferable buffer is left to the garbage collector, without an error', async t => {
  const { markAsUntransferable } = await import('node:worker_threads')
  const kept = new Uint8Array(1024).fill(1)
  markAsUntransferable(kept.buffer)
  const freed = new Uint8Array(1024)
  t.doesNotThrow(() => discardBytes([kept, freed]))
  t.equal(kept.byteLength, 1024)
})

t.test('owning() keeps an array that owns its buffer, and copies a view, freeing what it was cut from', async t => {
  const alone = new Float32Array([1, 2, 3])
  t.equal(owning(alone), alone, 'no copy when the array owns its whole buffer')
  const output = new Float32Array([0, 1, 2, 3, 0])
  const view = output.subarray(1, 4)
  const copy = owning(view)
  t.same([...copy], [1, 2, 3])
  t.equal(copy.byteLength, copy.buffer.byteLength, 'the copy owns its whole buffer')
  t.equal(output.byteLength, 0, 'the buffer the view was cut from is freed')
  t.equal(view.length, 0, 'and the view reads as empty')
  await beforeIdle()
})

t.test('transferList() lists each array\'s buffer, in order', async t => {
  const a = new Float32Array(4)
  const b = new Uint8Array(8)
  t.same(transferList([a, b]), [a.buffer, b.buffer])
  t.equal(transferList([a, b])[1], b.buffer)
})
