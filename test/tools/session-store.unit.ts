// HTTP sessions are bounded in number and idle time, and a newcomer only
// ever replaces a session that is not active.

import t from 'tap'
import { ServerBusyError } from '../../src/tools/errors.js'
import { McpSession } from '../../src/tools/mcp-session.js'
import { SessionStore } from '../../src/tools/session-store.js'
import { startFakeSpawner, sendJson, toolsContext } from './helpers.js'

const context = toolsContext({ spawnerPort: 1 })

t.test('the inactive session idle longest makes room for a newcomer', async (t) => {
  let now = 0
  const store = new SessionStore({ maxSessions: 2, idleMs: 60_000, activeMs: 1000 }, () => now)
  const [a, b, c] = [new McpSession(context), new McpSession(context), new McpSession(context)]
  store.add(a)
  store.add(b)
  now = 5000
  t.equal(store.get(a.id), a, 'touching a makes b the one idle longest')
  store.add(c)
  t.equal(store.size, 2)
  t.equal(store.get(b.id), undefined)
  t.equal(store.get(a.id), a)
  t.equal(store.get(c.id), c)
})

t.test('a store full of active sessions refuses the newcomer instead of evicting', async (t) => {
  let now = 0
  const store = new SessionStore({ maxSessions: 2, idleMs: 60_000, activeMs: 10_000 }, () => now)
  const [a, b, c] = [new McpSession(context), new McpSession(context), new McpSession(context)]
  store.add(a)
  now = 2500
  store.add(b)
  now = 4000
  const refusal = t.throws(() => { store.add(c) }) as unknown as ServerBusyError
  t.ok(refusal instanceof ServerBusyError)
  t.equal(refusal.httpStatus, 503)
  t.equal(refusal.code, 'ERR_SESSIONS_FULL')
  t.equal(refusal.rpcCode, -32000)
  t.equal(refusal.retryAfterSeconds, 6, 'a turns inactive 10 s after its last use at 0; it is now 4 s')
  t.equal(refusal.message, 'Service Unavailable: all 2 sessions are in use; retry in 6 s')
  t.equal(store.get(a.id), a)
  t.equal(store.get(b.id), b)

  now = 14_001
  store.add(c)
  t.equal(store.get(c.id), c, 'once a and b have been quiet for activeMs, one makes room')
  t.equal(store.size, 2)
})

t.test('a session with a call in flight is active however long ago it was touched', async (t) => {
  const held: Array<() => void> = []
  const spawner = await startFakeSpawner(t, (_request, response) => { held.push(() => { sendJson(response, 200, []) }) })
  const slowContext = toolsContext({ spawnerPort: spawner.port, timeoutMs: 30_000 })
  let now = 0
  const store = new SessionStore({ maxSessions: 2, idleMs: 60_000, activeMs: 1000 }, () => now)
  const [busy, quiet, newcomer] = [new McpSession(slowContext), new McpSession(slowContext), new McpSession(slowContext)]
  store.add(busy)
  store.add(quiet)
  await busy.dispatch({ kind: 'request', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } })
  const call = busy.dispatch({ kind: 'request', id: 2, method: 'tools/call', params: { name: 'bot_list', arguments: {} } })
  while (spawner.requests.length === 0) await new Promise((resolve) => setImmediate(resolve))
  t.equal(busy.busy, true)
  t.equal(quiet.busy, false)

  now = 5000
  store.add(newcomer)
  t.equal(store.get(busy.id), busy, 'the busy session stays although it was added first')
  t.equal(store.get(quiet.id), undefined, 'the quiet one made room')
  held.shift()?.()
  t.match(await call, { id: 2, result: { structuredContent: { ok: true } } })
  t.equal(busy.busy, false)
})

t.test('idle sessions expire', async (t) => {
  let now = 0
  const store = new SessionStore({ maxSessions: 10, idleMs: 1000, activeMs: 100 }, () => now)
  const [a, b] = [new McpSession(context), new McpSession(context)]
  store.add(a)
  now = 600
  store.add(b)
  now = 1100
  t.equal(store.get(a.id), undefined, 'a was idle 1100 ms')
  t.equal(store.get(b.id), b, 'b was idle 500 ms')
  t.equal(store.delete(b.id), true)
  t.equal(store.delete(b.id), false)
})
