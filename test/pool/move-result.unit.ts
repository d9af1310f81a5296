// moveResult marks a worker's result the way Piscina.move does, from the
// Piscina files the worker host already loaded: the buffers must leave the
// worker (transferred, detached there), and the value arrive whole.

import { Piscina } from 'piscina'
import t from 'tap'
import { testSourceUrl } from '../helpers/source-tree.js'

const pool = new Piscina({ filename: testSourceUrl('pool/fixtures/move-worker.mjs').href, minThreads: 1, maxThreads: 1 })
t.teardown(async () => await pool.destroy())

t.test('a moved result arrives whole and its buffer is detached in the worker', async t => {
  const result = await pool.run('move') as { bytes: Uint8Array }
  t.equal(result.bytes.length, 1024)
  t.ok(result.bytes.every(b => b === 7), 'the bytes arrive as written')
  t.equal(await pool.run('report'), true, 'the worker no longer holds the buffer')
})

t.test('without it the result is copied and the worker keeps its buffer (the check can fail)', async t => {
  const result = await pool.run('copy') as { bytes: Uint8Array }
  t.equal(result.bytes.length, 1024)
  t.equal(await pool.run('report'), false)
})
