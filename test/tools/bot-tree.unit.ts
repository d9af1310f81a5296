// What an agent does: through the official client, build a bot tree under
// itself on the reference spawner, run it, reconcile it, and take it down
// children first.

import t from 'tap'
import { callTool, startReferenceSpawner, toolsClient } from './helpers.js'

t.test('an agent manages a bot tree', async (t) => {
  const spawner = await startReferenceSpawner(t, { maxBots: 4 })
  spawner.store.create({ first: 'Root', last: 'Governor' }, { level: 'GOVERNOR' })
  const agent = await toolsClient(t, { spawnerPort: spawner.port, identity: { first: 'Root', last: 'Governor' } })

  t.equal((await callTool(agent, 'bot_list')).result.ok, true, 'connectivity first')
  t.equal((await callTool(agent, 'bot_create', { first: 'Bob', last: 'Builder', level: 'BUILDER' })).result.ok, true)
  t.equal((await callTool(agent, 'bot_create', { first: 'Amy', last: 'Actor', level: 'ACTOR', parent: 'Bob Builder' })).result.ok, true)

  t.same((await callTool(agent, 'bot_create', { first: 'Wrong', last: 'Way', level: 'BUILDER', parent: 'Amy Actor' })).result, {
    ok: false,
    message: 'Spawner API 403 Forbidden: {"error":"Parent bot level ACTOR cannot create level BUILDER."}',
    status: 403,
    excerpt: '{"error":"Parent bot level ACTOR cannot create level BUILDER."}'
  })
  t.same((await callTool(agent, 'bot_create', { first: 'Bob', last: 'Builder', level: 'BUILDER' })).result.excerpt, '{"error":"Bot already exists."}')
  t.equal((await callTool(agent, 'bot_create', { first: 'Cat', last: 'Actor', level: 'ACTOR', parent: 'Bob Builder' })).result.ok, true)
  t.equal((await callTool(agent, 'bot_create', { first: 'Dan', last: 'Actor', level: 'ACTOR', parent: 'Bob Builder' })).result.excerpt,
    '{"error":"Maximum number of bots reached: 4."}')

  const root = JSON.parse((await callTool(agent, 'bot_get', { first: 'Root', last: 'Governor' })).result.payloadJson ?? '')
  t.same(root.children, ['Bob Builder'])
  const bob = JSON.parse((await callTool(agent, 'bot_get', { first: 'Bob', last: 'Builder' })).result.payloadJson ?? '')
  t.same(bob.children, ['Amy Actor', 'Cat Actor'])

  for (const name of ['Bob Builder', 'Amy Actor', 'Cat Actor']) {
    const [first, last] = name.split(' ')
    t.equal((await callTool(agent, 'bot_start', { first, last })).result.ok, true, `start ${name}`)
  }
  t.equal((await callTool(agent, 'bot_stop', { first: 'Cat', last: 'Actor' })).result.ok, true)
  const cat = JSON.parse((await callTool(agent, 'bot_get', { first: 'Cat', last: 'Actor' })).result.payloadJson ?? '')
  t.match(cat.containerStatus, [{ status: 'exited', running: false }], 'bot_get reconciles the runtime state')

  t.same((await callTool(agent, 'bot_delete', { first: 'Bob', last: 'Builder' })).result, {
    ok: false,
    message: 'Spawner API 409 Conflict: {"error":"Bot Bob Builder still has children: Amy Actor, Cat Actor. Delete them first."}',
    status: 409,
    excerpt: '{"error":"Bot Bob Builder still has children: Amy Actor, Cat Actor. Delete them first."}'
  })
  for (const name of ['Amy Actor', 'Cat Actor', 'Bob Builder']) {
    const [first, last] = name.split(' ')
    t.equal((await callTool(agent, 'bot_delete', { first, last })).result.ok, true, `delete ${name}`)
  }
  t.same(JSON.parse((await callTool(agent, 'bot_list')).result.payloadJson ?? ''), ['Root Governor'])
})
