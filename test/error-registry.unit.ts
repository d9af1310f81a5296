// One registry of error classes across thread boundaries: an error thrown in
// a worker thread comes back as the same class with its code, details, cause
// chain and both stacks (where it surfaced, then where it was thrown); a bug
// stays a bug and the HTTP answer to it is the generic 500, with the
// worker's stack in the log.

import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { Writable } from 'node:stream'
import { Worker } from 'node:worker_threads'
import Koa from 'koa'
import t from 'tap'
import { ChorusError, InvalidArgumentError } from '../src/errors.js'
import { rebuildError, rebuildIfRegistered, serializeError, type SerializedError } from '../src/error-registry.js'
import { InferenceError, VoiceConfigError } from '../src/engine/errors.js'
import { HOUSE_BODIES, INTERNAL_ERROR_MESSAGE, jsonErrors } from '../src/shared/json-errors.js'
import { createLogger } from '../src/shared/logger.js'
import { workerStartOptions } from '../src/worker-start-options.js'
import { testSourceUrl } from './helpers/source-tree.js'

const TS_WORKER = testSourceUrl('helpers/ts-worker.mjs')
const THROWER = testSourceUrl('helpers/error-thrower.ts').href

function startThrower (kind: string): Worker {
  return new Worker(TS_WORKER, { workerData: { entry: THROWER, kind }, ...workerStartOptions() })
}

/** What the worker posted, rebuilt on this side. */
async function thrownIn (kind: string): Promise<Error> {
  const worker = startThrower(kind)
  const [posted] = await once(worker, 'message') as [SerializedError]
  await worker.terminate()
  return rebuildError(posted)
}

t.test('a typed error comes back as its class, with code, details, cause and both stacks', async t => {
  const error = await thrownIn('typed')
  t.type(error, InferenceError)
  const typed = error as InferenceError
  t.match(typed, { code: 'ERR_INFERENCE', status: 500, expose: false, message: 'The model failed' })
  t.same(typed.details, { voice: 'en_US-probe-medium', sentence: 2 })
  t.type(typed.cause, Error)
  t.match(typed.cause, { message: 'ORT said no', code: 'ERR_ORT' })
  t.notOk(typed.cause instanceof ChorusError, 'the native cause is not turned into one of ours')
  const stack = typed.stack ?? ''
  t.match(stack, /^InferenceError: The model failed\n/)
  const boundary = stack.indexOf('--- thrown in another thread ---')
  t.ok(boundary > 0, 'the two stacks are told apart')
  t.ok(stack.indexOf('error-registry.unit.ts') < boundary, 'this side\'s frames first')
  t.ok(stack.indexOf('error-thrower.ts', boundary) > boundary, 'then the worker\'s')
  t.match((typed.cause as Error).stack, /error-thrower\.ts/, 'the cause keeps its own stack')
})

t.test('a TypeError in a worker comes back as a TypeError, never as an operational error', async t => {
  const error = await thrownIn('bug')
  t.type(error, TypeError)
  t.notOk(error instanceof ChorusError)
  t.match(error.message, /undefined/)
  t.match(error.stack, /--- thrown in another thread ---\n.*error-thrower\.ts/s)
})

t.test('a code no catalogue registered keeps its status, expose, details and headers', async t => {
  const error = await thrownIn('foreign-code') as ChorusError
  t.type(error, ChorusError)
  t.match(error, { code: 'ERR_SOMETHING_ELSE', status: 429, expose: true, message: 'Not in the table' })
  t.same(error.details, { limit: 3 })
  t.same(error.headers, { 'Retry-After': '2' })
})

t.test('a cause that is not an Error travels as text; a loop of causes is cut', async t => {
  const odd = await thrownIn('odd-cause')
  t.type(odd.cause, 'string')
  t.match(odd.cause, /not an Error/)
  let depth = 0
  for (let cause = (await thrownIn('cause-loop')).cause; cause instanceof Error; cause = cause.cause) depth++
  t.ok(depth > 0 && depth <= 8, `the chain ends (${depth} causes)`)
})

t.test('an error escaping a starting worker keeps its class by its registered code', async t => {
  const worker = startThrower('uncaught')
  const [escaped] = await once(worker, 'error') as [Error]
  t.notOk(escaped instanceof ChorusError, 'Node\'s own cloning loses the class')
  const rebuilt = rebuildIfRegistered(escaped)
  t.type(rebuilt, VoiceConfigError)
  t.same((rebuilt as VoiceConfigError).details, { field: 'num_symbols' })
})

t.test('within one thread the round trip is exact for every registered class', async t => {
  const original = new InvalidArgumentError('Expected x for y but received z (string)', { field: 'y' }, { cause: new RangeError('inner') })
  const back = rebuildError(structuredClone(serializeError(original)))
  t.type(back, InvalidArgumentError)
  t.match(back, { code: 'ERR_INVALID_ARGUMENT', status: 400, expose: true, details: { field: 'y' } })
  t.type(back.cause, RangeError)
})

t.test('over HTTP, a worker\'s bug is the generic 500 and its stack is in the log', async t => {
  const bug = await thrownIn('bug')
  const lines: Array<Record<string, any>> = []
  const sink = new Writable({
    write (chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(JSON.parse(line))
      done()
    }
  })
  const log = createLogger('chorus-tts', 'info', sink)
  const app = new Koa()
  app.use(jsonErrors({ ...HOUSE_BODIES, log: () => log }))
  app.use(async () => { throw bug })
  const server = app.listen(0, '127.0.0.1')
  t.teardown(() => { server.close() })
  await once(server, 'listening')
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/tts`, { method: 'POST' })
  t.equal(response.status, 500)
  t.same(await response.json(), { error: INTERNAL_ERROR_MESSAGE, code: 'ERR_INTERNAL' })
  const logged = lines.find(line => line.msg === 'unexpected error')
  t.equal(logged?.level, 50, 'at error level')
  t.equal(logged?.err?.type, 'TypeError')
  t.match(logged?.err?.stack, /error-thrower\.ts/, 'the worker\'s frames are in the log')
})
