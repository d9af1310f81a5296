// discardBytes detaches what it may free, and only that; bytesFreed tells
// when the memory has gone.

import t from 'tap'
import { bytesFreed, discardBytes } from '../../src/engine/discard-bytes.js'

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

t.test('the memory goes on a later turn of the event loop, and bytesFreed waits for it', async t => {
  const SIZE = 8 << 20
  const arrays = [new Uint8Array(SIZE), new Uint8Array(SIZE)]
  const before = process.memoryUsage().arrayBuffers
  discardBytes([arrays[0]])
  discardBytes([arrays[1]])
  // Detached at once, but still this thread's memory until the channels close.
  t.ok(process.memoryUsage().arrayBuffers > before - SIZE, 'not yet freed in the same turn')
  await bytesFreed()
  const after = process.memoryUsage().arrayBuffers
  t.ok(after <= before - 2 * SIZE, `freed once bytesFreed resolves (${((before - after) / 1e6).toFixed(1)} MB of ${(2 * SIZE / 1e6).toFixed(1)})`)
  await bytesFreed()
  t.pass('with nothing pending, it resolves at once')
})
