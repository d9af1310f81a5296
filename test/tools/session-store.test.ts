// HTTP sessions are bounded in number and idle time.

import t from 'tap'
import { McpSession } from '../../src/tools/mcp-session.js'
import { SessionStore } from '../../src/tools/session-store.js'
import { toolsContext } from './helpers.js'

const context = toolsContext({ spawnerPort: 1 })

t.test('the session idle longest goes first when the store is full', async (t) => {
  const store = new SessionStore({ maxSessions: 2, idleMs: 60_000 })
  const [a, b, c] = [new McpSession(context), new McpSession(context), new McpSession(context)]
  store.add(a)
  store.add(b)
  t.equal(store.get(a.id), a, 'touching a makes b the oldest')
  store.add(c)
  t.equal(store.size, 2)
  t.equal(store.get(b.id), undefined)
  t.equal(store.get(a.id), a)
  t.equal(store.get(c.id), c)
})

t.test('idle sessions expire', async (t) => {
  let now = 0
  const store = new SessionStore({ maxSessions: 10, idleMs: 1000 }, () => now)
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
