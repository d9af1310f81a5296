// Every tool through the official MCP client over Streamable HTTP, against
// the reference spawner: the happy paths and what they send.

import t from 'tap'
import { callTool, startFakeSpawner, startReferenceSpawner, sendJson, toolsClient } from './helpers.js'

const ROOT = { first: 'Root', last: 'Governor' }

t.test('the official client lists the tools with schemas and descriptions', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ROOT })
  t.match(client.getServerVersion(), { name: 'chorus-tools' })
  t.match(client.getServerCapabilities(), { tools: {} })
  t.match(client.getInstructions(), /Run bot_list first/)
  const { tools } = await client.listTools()
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  t.same([...byName.keys()], ['bot_list', 'bot_get', 'bot_create', 'bot_start', 'bot_stop', 'bot_restart', 'bot_delete'])
  t.same(byName.get('bot_list')?.inputSchema.required, [])
  t.same(byName.get('bot_get')?.inputSchema.required, ['first', 'last'])
  t.same(byName.get('bot_create')?.inputSchema.required, ['first', 'last', 'level'])
  t.same(Object.keys(byName.get('bot_create')?.inputSchema.properties ?? {}), ['first', 'last', 'level', 'parent', 'email', 'model'])
  t.match(byName.get('bot_list')?.description, /first to check that the spawner is reachable/)
  t.match(byName.get('bot_create')?.description, /exact full name/)
  t.match(byName.get('bot_get')?.description, /reconcile/)
  t.match(byName.get('bot_delete')?.description, /children before their parent/)
  for (const name of ['bot_start', 'bot_stop', 'bot_restart']) t.match(byName.get(name)?.description, /only for you \(the active bot\) and your descendants/)
  t.match(byName.get('bot_list')?.annotations, { readOnlyHint: true })
  t.match(byName.get('bot_delete')?.annotations, { destructiveHint: true, readOnlyHint: false })
})

t.test('every tool succeeds against the reference spawner', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ROOT })
  spawner.store.create(ROOT, { level: 'GOVERNOR' })

  const list = await callTool(client, 'bot_list')
  t.same(list.result, { ok: true, message: 'Listed 1 bot.', payloadJson: '["Root Governor"]' })
  t.equal(list.isError, false)

  const created = await callTool(client, 'bot_create', { first: 'Ada', last: 'Builder', level: 'builder', email: 'ada@example.org', model: 'Ada' })
  t.equal(created.result.ok, true)
  t.equal(created.result.message, 'Created bot Ada Builder (level BUILDER, parent Root Governor).')
  t.match(JSON.parse(created.result.payloadJson ?? ''), { first: 'Ada', last: 'Builder', level: 'BUILDER', parent: 'Root Governor', email: 'ada@example.org', model: 'Ada', password: String })

  const got = await callTool(client, 'bot_get', { first: 'Ada', last: 'Builder' })
  t.equal(got.result.message, 'Read bot Ada Builder.')
  t.match(JSON.parse(got.result.payloadJson ?? ''), { parent: 'Root Governor', containerStatus: [{ status: 'created', running: false }] })

  for (const [tool, done, status] of [['bot_start', 'Started', 'running'], ['bot_stop', 'Stopped', 'exited'], ['bot_restart', 'Restarted', 'running']] as const) {
    const acted = await callTool(client, tool, { first: 'Ada', last: 'Builder' })
    t.equal(acted.result.ok, true, tool)
    t.equal(acted.result.message, `${done} bot Ada Builder.`)
    t.same(JSON.parse(acted.result.payloadJson ?? ''), { first: 'Ada', last: 'Builder', action: tool.slice(4), ok: true })
    t.equal(spawner.store.get({ first: 'Ada', last: 'Builder' }).containerStatus[0]?.status, status)
  }

  const deleted = await callTool(client, 'bot_delete', { first: 'Ada', last: 'Builder' })
  t.same(deleted.result, { ok: true, message: 'Deleted bot Ada Builder.', payloadJson: '{"first":"Ada","last":"Builder","deleted":true}' })
  t.same(spawner.store.list(), ['Root Governor'])
})

t.test('aliases are accepted by tools/call', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ROOT })
  t.equal((await callTool(client, 'BotCreate', { first: 'Root', last: 'Governor', level: 'GOVERNOR', parent: ' ' })).result.ok, false,
    'a blank parent means the default: the active bot itself, which does not exist yet')
  spawner.store.create(ROOT, { level: 'GOVERNOR' })
  t.equal((await callTool(client, 'BotList')).result.ok, true)
  t.equal((await callTool(client, 'BotCreate', { first: 'Al', last: 'Actor', level: 'ACTOR' })).result.ok, true)
  t.equal((await callTool(client, 'BotGet', { first: 'Al', last: 'Actor' })).result.ok, true)
  t.equal((await callTool(client, 'BotStart', { first: 'Al', last: 'Actor' })).result.ok, true)
  t.equal((await callTool(client, 'BotStop', { first: 'Al', last: 'Actor' })).result.ok, true)
  t.equal((await callTool(client, 'BotRestart', { first: 'Al', last: 'Actor' })).result.ok, true)
  t.equal((await callTool(client, 'BotDelete', { first: 'Al', last: 'Actor' })).result.ok, true)
})

t.test('bot_create: the reference spawner reads the form it sends: the parent defaults to the active bot, the fields as given', async (t) => {
  const spawner = await startReferenceSpawner(t)
  spawner.store.create(ROOT, { level: 'GOVERNOR' })
  spawner.store.create({ first: 'Other', last: 'Parent' }, { level: 'GOVERNOR' })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ROOT })
  for (const args of [
    { first: 'Kid', last: 'One', level: 'actor' },
    { first: 'Kid', last: 'Two', level: ' Builder ', parent: 'Other Parent', email: 'two@example.org', model: 'Bob' },
    { first: 'Kid', last: 'Three', level: 'ACTOR', email: '', model: '' }
  ]) t.equal((await callTool(client, 'bot_create', args)).result.ok, true, `${args.first} ${args.last} created`)
  const stored = (last: string): object => {
    const { level, parent, email, model } = spawner.store.get({ first: 'Kid', last })
    return { level, parent, email, model }
  }
  t.same(stored('One'), { level: 'ACTOR', parent: 'Root Governor', email: 'kid.one@localhost', model: 'Ruth' }, 'the parent defaults to the active bot; the spawner\'s own email and model')
  t.same(stored('Two'), { level: 'BUILDER', parent: 'Other Parent', email: 'two@example.org', model: 'Bob' }, 'every field as given, the level trimmed and upper-cased')
  t.same(stored('Three'), { level: 'ACTOR', parent: 'Root Governor', email: 'kid.three@localhost', model: 'Ruth' }, 'blank email and model: the spawner\'s own')
})

t.test('bot_create on the wire: a form, with email and model only when given', async (t) => {
  const spawner = await startFakeSpawner(t, (_request, response) => { sendJson(response, 200, { created: true }) })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ROOT })

  await callTool(client, 'bot_create', { first: 'Kid', last: 'One', level: 'actor' })
  await callTool(client, 'bot_create', { first: 'Kid', last: 'Two', level: ' Builder ', parent: 'Other Parent', email: 'two@example.org', model: 'Bob' })
  await callTool(client, 'bot_create', { first: 'Kid', last: 'Three', level: 'ACTOR', email: '', model: '' })
  const forms = spawner.requests.map((request) => Object.fromEntries(new URLSearchParams(request.body)))
  t.same(forms, [
    { level: 'ACTOR', parent: 'Root Governor' },
    { level: 'BUILDER', parent: 'Other Parent', email: 'two@example.org', model: 'Bob' },
    { level: 'ACTOR', parent: 'Root Governor' }
  ], 'email and model only when given, level upper-cased')
  for (const request of spawner.requests) {
    t.equal(request.method, 'POST')
    t.equal(request.headers['content-type'], 'application/x-www-form-urlencoded;charset=UTF-8')
  }
})

t.test('bot_create without an identity sends no parent', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const client = await toolsClient(t, { spawnerPort: spawner.port })
  const created = await callTool(client, 'bot_create', { first: 'Top', last: 'Bot', level: 'GOVERNOR' })
  t.equal(created.result.message, 'Created bot Top Bot (level GOVERNOR, no parent).')
  t.equal(spawner.store.get({ first: 'Top', last: 'Bot' }).parent, null)
})

t.test('payloadJson is the raw body; an empty body becomes "{}"', async (t) => {
  const bodies = ['', '  {"spaced" : true}  ', 'not json at all']
  const spawner = await startFakeSpawner(t, (_request, response) => {
    const body = bodies.shift() ?? ''
    response.writeHead(body === '' ? 204 : 200, { 'content-type': 'application/json' })
    response.end(body)
  })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ROOT })
  t.same((await callTool(client, 'bot_delete', { first: 'A', last: 'B' })).result, { ok: true, message: 'Deleted bot A B.', payloadJson: '{}' })
  t.equal((await callTool(client, 'bot_get', { first: 'A', last: 'B' })).result.payloadJson, '  {"spaced" : true}  ')
  t.same((await callTool(client, 'bot_list')).result, { ok: true, message: 'Listed bots.', payloadJson: 'not json at all' })
})
