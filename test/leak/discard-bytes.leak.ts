// discardBytes frees on a later turn of the event loop, and beforeIdle waits
// for it: judged against this thread's own ArrayBuffer bytes just before,
// for arrays of a known size, a few times over.

import t from 'tap'
import { beforeIdle, discardBytes } from '../../src/engine/memory/index.js'
import { figures, least, most, repeat, ROUNDS } from './figures.js'

const SIZE = 8 << 20

t.test('the memory goes on a later turn of the event loop, and beforeIdle waits for it', async t => {
  const sameTurn: number[] = []
  const freed = await repeat(ROUNDS, async () => {
    const arrays = [new Uint8Array(SIZE), new Uint8Array(SIZE)]
    const before = process.memoryUsage().arrayBuffers
    discardBytes([arrays[0]])
    discardBytes([arrays[1]])
    // Detached at once, but still this thread's memory until the channels close.
    sameTurn.push(before - process.memoryUsage().arrayBuffers)
    await beforeIdle()
    return before - process.memoryUsage().arrayBuffers
  })
  figures(t, 'freed in the same turn', sameTurn, 'MB')
  figures(t, 'freed once beforeIdle resolved', freed, 'MB')
  figures(t, 'discarded', [2 * SIZE], 'MB')
  t.ok(most(sameTurn) < SIZE, 'not yet freed in the same turn')
  t.ok(least(freed) >= 2 * SIZE, 'all of it freed once beforeIdle resolves, every time')
  await beforeIdle()
  t.pass('with nothing pending, it resolves at once')
})
