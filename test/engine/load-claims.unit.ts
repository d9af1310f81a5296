// Load claims (native/voice_registry.h): one thread at a time loads a model
// key, the others wait for its voice, and a thread that stops drops its
// claims so nobody waits on it for ever.

import { existsSync } from 'node:fs'
import { once } from 'node:events'
import { Worker } from 'node:worker_threads'
import t from 'tap'
import { BINARY_CANDIDATES, initRuntime } from '../../src/engine/index.js'

// A thread that answers {claim|release: key} with the addon's result.
const CLAIMER = `
const { parentPort, workerData } = require('node:worker_threads')
const binding = require(workerData.binary)
parentPort.on('message', m => {
  parentPort.postMessage(m.claim !== undefined ? binding.claimLoad(m.claim) : binding.releaseClaim(m.release))
})`

async function ask (worker: Worker, message: { claim: string } | { release: string }): Promise<unknown> {
  const reply = once(worker, 'message')
  worker.postMessage(message)
  return (await reply)[0]
}

t.test('a key is claimed by one thread at a time, and freed by release or by the thread stopping', async t => {
  const { binding } = initRuntime()
  const binary = BINARY_CANDIDATES.find(existsSync)
  const key = `claims-test-${process.pid}`
  const worker = new Worker(CLAIMER, { eval: true, workerData: { binary } })
  t.teardown(async () => { await worker.terminate() })

  t.equal(binding.claimLoad(key), true, 'the first claim is granted')
  t.equal(binding.claimLoad(key), false, 'a second claim, even by the holder, is not')
  t.equal(await ask(worker, { claim: key }), false, 'another thread is told to wait')
  t.equal(await ask(worker, { release: key }), undefined, 'a thread that holds no claim cannot release one')
  t.equal(binding.claimLoad(key), false, '... the claim is still held')
  binding.releaseClaim(key)
  t.equal(await ask(worker, { claim: key }), true, 'released: the other thread gets it')
  t.equal(binding.claimLoad(key), false, 'and holds it')
  await worker.terminate()
  t.equal(binding.claimLoad(key), true, 'a thread that stopped dropped its claim')
  binding.releaseClaim(key)
  t.throws(() => (binding.claimLoad as (k: unknown) => boolean)(42), /claimLoad\(key: string\)/, 'a key must be a string')
})
