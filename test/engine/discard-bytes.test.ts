// discardBytes detaches what it may free, and only that. That bytesFreed
// resolves once the memory has gone is measured in
// test/leak/discard-bytes.leak.ts.

import t from 'tap'
import { discardBytes } from '../../src/engine/discard-bytes.js'

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
