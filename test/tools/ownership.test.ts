// The ownership rule: bot_start, bot_stop and bot_restart act only on the
// active bot and its descendants, decided by walking up the parents.

import t from 'tap'
import { callTool, sendJson, startFakeSpawner, startReferenceSpawner, toolsClient, type Teardown } from './helpers.js'
import type { BotName } from '../../src/shared/bot-names.js'

async function referenceTree (t: Teardown): Promise<Awaited<ReturnType<typeof startReferenceSpawner>>> {
  const spawner = await startReferenceSpawner(t)
  const { store } = spawner
  store.create({ first: 'Me', last: 'Gov' }, { level: 'GOVERNOR' })
  store.create({ first: 'Kid', last: 'Builder' }, { level: 'BUILDER', parent: 'Me Gov' })
  store.create({ first: 'Sib', last: 'Builder' }, { level: 'BUILDER', parent: 'Me Gov' })
  store.create({ first: 'Grand', last: 'Actor' }, { level: 'ACTOR', parent: 'Kid Builder' })
  store.create({ first: 'Other', last: 'Gov' }, { level: 'GOVERNOR' })
  store.create({ first: 'Stranger', last: 'Actor' }, { level: 'ACTOR', parent: 'Other Gov' })
  return spawner
}

t.test('allowed: the active bot itself, a child, a grandchild', async (t) => {
  const spawner = await referenceTree(t)
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: { first: 'Me', last: 'Gov' } })
  const cases: Array<[string, BotName]> = [
    ['bot_start', { first: 'Me', last: 'Gov' }],
    ['bot_restart', { first: 'me', last: 'GOV' }],
    ['bot_start', { first: 'Kid', last: 'Builder' }],
    ['bot_stop', { first: 'Grand', last: 'Actor' }],
    ['bot_restart', { first: 'grand', last: 'actor' }]
  ]
  for (const [tool, target] of cases) {
    const { result } = await callTool(client, tool, { ...target })
    t.equal(result.ok, true, `${tool} ${target.first} ${target.last}: ${result.message}`)
  }
  t.equal(spawner.store.get({ first: 'Grand', last: 'Actor' }).containerStatus[0]?.status, 'running')
})

t.test('refused: a sibling, a parent, an unrelated bot, an unknown bot', async (t) => {
  const spawner = await referenceTree(t)
  const asKid = await toolsClient(t, { spawnerPort: spawner.port, identity: { first: 'Kid', last: 'Builder' } })
  t.same((await callTool(asKid, 'bot_start', { first: 'Sib', last: 'Builder' })).result, {
    ok: false,
    message: 'Refusing to start Sib Builder: it is neither the active bot Kid Builder nor one of its descendants (its chain of parents ends at Me Gov).'
  })
  t.same((await callTool(asKid, 'bot_stop', { first: 'Me', last: 'Gov' })).result, {
    ok: false,
    message: 'Refusing to stop Me Gov: it is neither the active bot Kid Builder nor one of its descendants (its chain of parents ends at Me Gov).'
  })
  const asMe = await toolsClient(t, { spawnerPort: spawner.port, identity: { first: 'Me', last: 'Gov' } })
  t.same((await callTool(asMe, 'bot_restart', { first: 'Stranger', last: 'Actor' })).result, {
    ok: false,
    message: 'Refusing to restart Stranger Actor: it is neither the active bot Me Gov nor one of its descendants (its chain of parents ends at Other Gov).'
  })
  t.same((await callTool(asMe, 'bot_start', { first: 'No', last: 'Body' })).result, {
    ok: false,
    message: 'Refusing to start No Body: reading bot No Body failed: Spawner API 404 Not Found: {"error":"Bot not found: No Body."}.'
  })
  for (const name of ['Sib Builder', 'Me Gov', 'Stranger Actor']) {
    const [first, last] = name.split(' ') as [string, string]
    t.equal(spawner.store.get({ first, last }).containerStatus[0]?.status, 'created', `${name} untouched`)
  }
})

t.test('refused: no active identity configured, without asking the spawner', async (t) => {
  const spawner = await startFakeSpawner(t, (_request, response) => { sendJson(response, 200, {}) })
  const client = await toolsClient(t, { spawnerPort: spawner.port })
  for (const [tool, verb] of [['bot_start', 'start'], ['bot_stop', 'stop'], ['bot_restart', 'restart']]) {
    t.same((await callTool(client, tool as string, { first: 'Any', last: 'Bot' })).result, {
      ok: false,
      message: `Refusing to ${verb} Any Bot: no active bot identity is configured (set OPENSIM_BOT_FIRST and OPENSIM_BOT_LAST, or --first-name and --last-name).`
    })
  }
  t.equal(spawner.requests.length, 0)
})

/** A fake spawner whose bots (case-insensitive) have the given parents, sent verbatim. */
async function parentsSpawner (t: Teardown, parents: Record<string, unknown>): Promise<Awaited<ReturnType<typeof startFakeSpawner>>> {
  return await startFakeSpawner(t, (request, response) => {
    if (request.method === 'PATCH') return sendJson(response, 200, { ok: true })
    const name = decodeURIComponent(request.url.replace('/api/bot/', '')).replace('/', ' ').toLowerCase()
    const key = Object.keys(parents).find((candidate) => candidate.toLowerCase() === name)
    if (key === undefined) return sendJson(response, 404, { error: 'Bot not found.' })
    const parent = parents[key]
    if (parent === 'RAW') return sendJson(response, 200, 'this is not json')
    if (parent === 'ARRAY') return sendJson(response, 200, [])
    if (parent === 'FAIL') return sendJson(response, 500, '', 'Internal Server Error')
    sendJson(response, 200, parent === 'OMIT' ? { first: 'x' } : { parent })
  })
}

t.test('refused: a cycle, a malformed parent, a failed or odd read', async (t) => {
  const me = { first: 'Me', last: 'Here' }
  const spawner = await parentsSpawner(t, {
    'Loop A': 'Loop B',
    'Loop B': 'Loop A',
    'Self Loop': 'Self Loop',
    'Bad Parent': 'Justone',
    'Wide Parent': 'Too Many Names',
    'Slash Parent': 'a/b c',
    'Typed Parent': 42,
    'Raw Body': 'RAW',
    'Array Body': 'ARRAY',
    'Broken Read': 'FAIL',
    'Orphan Bot': 'OMIT',
    'Null Parent': null,
    'Child Of': 'Dead Parent',
    'Deep Kid': 'Me Here',
    'Deeper Kid': 'deep KID'
  })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: me })
  const refusals: Array<[string, string]> = [
    ['Loop A', 'its chain of parents has a cycle at Loop A'],
    ['Self Loop', 'its chain of parents has a cycle at Self Loop'],
    ['Bad Parent', 'bot Bad Parent has a parent that is not in "First Last" form: "Justone"'],
    ['Wide Parent', 'bot Wide Parent has a parent that is not in "First Last" form: "Too Many Names"'],
    ['Slash Parent', 'bot Slash Parent has a parent that is not in "First Last" form: "a/b c"'],
    ['Typed Parent', 'bot Typed Parent has a parent that is not in "First Last" form: 42'],
    ['Raw Body', 'reading bot Raw Body failed: the spawner did not answer with JSON'],
    ['Array Body', 'reading bot Array Body failed: the spawner did not answer with a JSON object'],
    ['Broken Read', 'reading bot Broken Read failed: Spawner API 500 Internal Server Error: <empty>'],
    ['Orphan Bot', 'it is neither the active bot Me Here nor one of its descendants (its chain of parents ends at Orphan Bot)'],
    ['Null Parent', 'it is neither the active bot Me Here nor one of its descendants (its chain of parents ends at Null Parent)'],
    ['Child Of', 'reading bot Dead Parent failed: Spawner API 404 Not Found: {"error":"Bot not found."}']
  ]
  for (const [name, reason] of refusals) {
    const [first, last] = name.split(' ') as [string, string]
    t.same((await callTool(client, 'bot_start', { first, last })).result, { ok: false, message: `Refusing to start ${name}: ${reason}.` }, name)
  }
  t.notOk(spawner.requests.some((request) => request.method === 'PATCH'), 'no PATCH was sent for any refusal')

  const before = spawner.requests.length
  t.equal((await callTool(client, 'bot_stop', { first: 'Deeper', last: 'Kid' })).result.ok, true, 'parents match case-insensitively')
  t.same(spawner.requests.slice(before).map((request) => `${request.method} ${request.url}`), [
    'GET /api/bot/Deeper/Kid',
    'GET /api/bot/deep/KID',
    'PATCH /api/bot/Deeper/Kid'
  ], 'walks up one GET per generation, then acts')
  t.equal(spawner.requests.at(-1)?.body, 'action=stop')
})

t.test('refused: the spawner is unreachable while checking', async (t) => {
  const spawner = await startFakeSpawner(t, (_request, response) => { response.destroy() })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: { first: 'Me', last: 'Here' } })
  const { result } = await callTool(client, 'bot_restart', { first: 'Kid', last: 'Bot' })
  t.equal(result.ok, false)
  t.match(result.message, /^Refusing to restart Kid Bot: reading bot Kid Bot failed: Spawner API request failed: fetch failed .*: GET http:\/\/127\.0\.0\.1:\d+\/api\/bot\/Kid\/Bot\.$/)
})

t.test('refused: an ancestry longer than any real hierarchy', async (t) => {
  const spawner = await startFakeSpawner(t, (request, response) => {
    const generation = Number(/\/Gen(\d+)$/.exec(request.url)?.[1] ?? 0)
    sendJson(response, 200, { parent: `Bot Gen${generation + 1}` })
  })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: { first: 'Me', last: 'Here' } })
  t.same((await callTool(client, 'bot_start', { first: 'Bot', last: 'Gen0' })).result, {
    ok: false,
    message: 'Refusing to start Bot Gen0: its chain of parents is longer than 64 generations.'
  })
  t.equal(spawner.requests.length, 65)
})

t.test('the default mode keeps the original contract: delete and create are not guarded', async (t) => {
  const spawner = await referenceTree(t)
  const asKid = await toolsClient(t, { spawnerPort: spawner.port, identity: { first: 'Kid', last: 'Builder' } })
  t.equal((await callTool(asKid, 'bot_delete', { first: 'Stranger', last: 'Actor' })).result.ok, true, 'an unrelated bot deleted')
  t.equal((await callTool(asKid, 'bot_create', { first: 'New', last: 'Actor', level: 'ACTOR', parent: 'Other Gov' })).result.ok, true,
    'a bot created under an unrelated parent')
})

t.test('strict mode: delete and create only within the active bot\'s own tree', async (t) => {
  const spawner = await referenceTree(t)
  const asKid = await toolsClient(t, { spawnerPort: spawner.port, identity: { first: 'Kid', last: 'Builder' }, ownership: 'strict' })
  t.same((await callTool(asKid, 'bot_delete', { first: 'Stranger', last: 'Actor' })).result, {
    ok: false,
    message: 'Refusing to delete Stranger Actor: it is neither the active bot Kid Builder nor one of its descendants (its chain of parents ends at Other Gov).'
  })
  t.same((await callTool(asKid, 'bot_create', { first: 'New', last: 'Actor', level: 'ACTOR', parent: 'Other Gov' })).result, {
    ok: false,
    message: 'Refusing to create New Actor under Other Gov: it is neither the active bot Kid Builder nor one of its descendants (its chain of parents ends at Other Gov).'
  })
  t.equal(spawner.store.list().length, 6, 'nothing deleted or created outside the tree')

  const own = await callTool(asKid, 'bot_create', { first: 'Own', last: 'Actor', level: 'ACTOR' })
  t.equal(own.result.ok, true, `under the active bot by default: ${own.result.message}`)
  const deep = await callTool(asKid, 'bot_create', { first: 'Deep', last: 'Actor', level: 'ACTOR', parent: 'Grand Actor' })
  t.equal(deep.result.ok, false, 'a descendant may be a parent as far as ownership goes; the spawner decides on levels')
  t.notMatch(deep.result.message, /^Refusing/, 'refused by the spawner (level rule), not by ownership')
  t.equal((await callTool(asKid, 'bot_delete', { first: 'Grand', last: 'Actor' })).result.ok, true, 'a descendant deleted')
  t.equal((await callTool(asKid, 'bot_delete', { first: 'Own', last: 'Actor' })).result.ok, true)

  const nobody = await toolsClient(t, { spawnerPort: spawner.port, ownership: 'strict' })
  t.match((await callTool(nobody, 'bot_create', { first: 'Root', last: 'Gov', level: 'GOVERNOR' })).result.message,
    /^Refusing to create Root Gov with no parent: in strict ownership mode/)
})
