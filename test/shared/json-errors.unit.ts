// The shared error middleware: one 500 wording on every server, an exposed
// error's status, headers and body, and Koa's empty 404 given a body.

import type { AddressInfo } from 'node:net'
import Koa from 'koa'
import t, { type Test } from 'tap'
import { ChorusError } from '../../src/errors.js'
import { overloaded } from '../../src/synthesis/errors.js'
import { HOUSE_BODIES, INTERNAL_ERROR_MESSAGE, jsonErrors } from '../../src/shared/json-errors.js'

async function serve (t: Test, app: Koa): Promise<string> {
  const server = app.listen(0, '127.0.0.1')
  t.teardown(() => server.close())
  await new Promise(resolve => server.once('listening', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

function appThrowing (error: unknown, bugs: unknown[]): Koa {
  const app = new Koa()
  app.on('error', (bug: unknown) => { bugs.push(bug) })
  app.use(jsonErrors({ ...HOUSE_BODIES, unrouted: (status, message) => ({ error: message, status }) }))
  app.use(ctx => {
    if (ctx.path === '/throw') throw error
  })
  return app
}

t.test('a bug: the one 500 wording, details only in the app\'s error event', async t => {
  const bugs: unknown[] = []
  const base = await serve(t, appThrowing(new Error('secret detail'), bugs))
  const reply = await fetch(base + '/throw')
  t.equal(reply.status, 500)
  t.same(await reply.json(), { error: INTERNAL_ERROR_MESSAGE, code: 'ERR_INTERNAL' })
  t.equal(INTERNAL_ERROR_MESSAGE, 'Internal server error')
  t.match(bugs, [{ message: 'secret detail' }])
})

t.test('an exposed error: its status, headers and house body; not reported as a bug', async t => {
  const bugs: unknown[] = []
  const base = await serve(t, appThrowing(overloaded(3), bugs))
  const reply = await fetch(base + '/throw')
  t.equal(reply.status, 503)
  t.equal(reply.headers.get('retry-after'), '3')
  t.same(await reply.json(), { error: 'Server is busy: too many requests in progress, retry later', code: 'ERR_OVERLOADED' })
  t.same(bugs, [])
})

t.test('an unexposed ChorusError is answered like a bug', async t => {
  const bugs: unknown[] = []
  const base = await serve(t, appThrowing(new ChorusError('ERR_X', 'inner detail', { status: 400, expose: false }), bugs))
  const reply = await fetch(base + '/throw')
  t.equal(reply.status, 500)
  t.same(await reply.json(), { error: INTERNAL_ERROR_MESSAGE, code: 'ERR_INTERNAL' })
  t.equal(bugs.length, 1)
})

t.test('what no route answered gets the server\'s unrouted body with its status', async t => {
  const base = await serve(t, appThrowing(new Error('unused'), []))
  const reply = await fetch(base + '/elsewhere')
  t.equal(reply.status, 404)
  t.same(await reply.json(), { error: 'Not Found', status: 404 })
})
