// The reference spawner's HTTP contract, spoken to directly.

import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { REQUEST_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { StateFile } from '../../src/spawner/state-file.js'
import { startReferenceSpawner, type ReferenceSpawner } from '../tools/helpers.js'

interface Answer {
  status: number
  body: any
  headers: Headers
}

async function call (spawner: ReferenceSpawner, method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(spawner.url + path, {
    method,
    headers,
    body: form === undefined ? undefined : new URLSearchParams(form),
    signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS)
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: response.headers }
}

t.test('create, read, act on and delete a bot', async (t) => {
  const spawner = await startReferenceSpawner(t)
  t.same((await call(spawner, 'GET', '/api/bot')).body, [])

  const created = await call(spawner, 'POST', '/api/bot/Ada/Lovelace', { level: 'GOVERNOR' })
  t.equal(created.status, 200)
  t.match(created.body, { first: 'Ada', last: 'Lovelace', level: 'GOVERNOR', parent: null, email: 'ada.lovelace@localhost', model: 'Ruth' })
  t.type(created.body.password, 'string')
  t.match(created.body.uuid, /^[0-9a-f-]{36}$/)

  const child = await call(spawner, 'POST', '/api/bot/Bob/Builder', { level: 'BUILDER', parent: 'Ada Lovelace', email: 'bob@example.org', model: 'Bob' })
  t.match(child.body, { level: 'BUILDER', parent: 'Ada Lovelace', email: 'bob@example.org', model: 'Bob' })
  const blankLevel = await call(spawner, 'POST', '/api/bot/Cy/Actor', { level: '', parent: 'Bob Builder' })
  t.equal(blankLevel.body.level, 'ACTOR', 'a blank level means ACTOR')
  t.same((await call(spawner, 'GET', '/api/bot')).body, ['Ada Lovelace', 'Bob Builder', 'Cy Actor'])

  const read = await call(spawner, 'GET', '/api/bot/Ada/Lovelace')
  t.same(Object.keys(read.body).sort(), ['children', 'containerStatus', 'email', 'first', 'last', 'level', 'model', 'parent', 'uuid'])
  t.same(read.body.children, ['Bob Builder'])
  t.match(read.body.containerStatus, [{ containerId: /^[0-9a-f]{12}$/, containerName: 'bot-ada-lovelace', status: 'created', running: false }])
  t.equal(read.body.password, undefined, 'the password is only shown once, on creation')

  for (const [action, status, running] of [['start', 'running', true], ['stop', 'exited', false], ['restart', 'running', true]] as const) {
    const acted = await call(spawner, 'PATCH', '/api/bot/Ada/Lovelace', { action })
    t.same(acted.body, { first: 'Ada', last: 'Lovelace', action, ok: true })
    t.match((await call(spawner, 'GET', '/api/bot/Ada/Lovelace')).body.containerStatus, [{ status, running }], action)
  }

  t.same((await call(spawner, 'DELETE', '/api/bot/Cy/Actor')).body, { first: 'Cy', last: 'Actor', deleted: true })
  t.equal((await call(spawner, 'GET', '/api/bot/Cy/Actor')).status, 404)
})

t.test('refusals are {"error": reason} with the documented status', async (t) => {
  const spawner = await startReferenceSpawner(t, { maxBots: 3 })
  await call(spawner, 'POST', '/api/bot/Gov/One', { level: 'GOVERNOR' })
  await call(spawner, 'POST', '/api/bot/Act/One', { level: 'ACTOR', parent: 'Gov One' })

  const cases: Array<[string, string, string, Record<string, string> | undefined, number, string]> = [
    ['exists', 'POST', '/api/bot/Gov/One', { level: 'GOVERNOR' }, 403, 'Bot already exists.'],
    ['exists, other case', 'POST', '/api/bot/gov/ONE', { level: 'GOVERNOR' }, 403, 'Bot already exists.'],
    ['missing parent', 'POST', '/api/bot/New/Bot', { level: 'ACTOR', parent: 'No Body' }, 403, 'Parent bot not found: No Body.'],
    ['same level', 'POST', '/api/bot/New/Bot', { level: 'GOVERNOR', parent: 'Gov One' }, 403, 'Parent bot level GOVERNOR cannot create level GOVERNOR.'],
    ['higher level', 'POST', '/api/bot/New/Bot', { level: 'BUILDER', parent: 'Act One' }, 403, 'Parent bot level ACTOR cannot create level BUILDER.'],
    ['unknown level', 'POST', '/api/bot/New/Bot', { level: 'KING' }, 400, 'Unknown level: KING. Expected GOVERNOR, BUILDER or ACTOR.'],
    ['unknown action', 'PATCH', '/api/bot/Gov/One', { action: 'explode' }, 400, 'Unknown action: explode. Expected start, stop or restart.'],
    ['no action', 'PATCH', '/api/bot/Gov/One', {}, 400, 'Unknown action: <none>. Expected start, stop or restart.'],
    ['unknown bot', 'GET', '/api/bot/No/Body', undefined, 404, 'Bot not found: No Body.'],
    ['unknown bot patch', 'PATCH', '/api/bot/No/Body', { action: 'start' }, 404, 'Bot not found: No Body.'],
    ['unknown bot delete', 'DELETE', '/api/bot/No/Body', undefined, 404, 'Bot not found: No Body.'],
    ['parent with children', 'DELETE', '/api/bot/Gov/One', undefined, 409, 'Bot Gov One still has children: Act One. Delete them first.'],
    ['name with a slash', 'GET', '/api/bot/a%2Fb/c', undefined, 400, 'Expected a name without "/" or "\\" for first but received "a/b" (string)'],
    ['unknown path', 'GET', '/api/nothing', undefined, 404, 'Not Found.']
  ]
  for (const [label, method, path, form, status, error] of cases) {
    const answer = await call(spawner, method, path, form)
    t.equal(answer.status, status, `${label}: status`)
    t.same(answer.body, { error }, `${label}: body`)
  }

  const json = await fetch(spawner.url + '/api/bot/X/Y', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"level":"ACTOR"}' })
  t.equal(json.status, 400, 'bodies must be form-encoded')

  await call(spawner, 'POST', '/api/bot/Third/Bot', { level: 'ACTOR' })
  const full = await call(spawner, 'POST', '/api/bot/Fourth/Bot', { level: 'ACTOR' })
  t.equal(full.status, 403)
  t.same(full.body, { error: 'Maximum number of bots reached: 3.' })
})

t.test('with a token, /api/* needs it and /healthz does not', async (t) => {
  const spawner = await startReferenceSpawner(t, { token: 's3cret-token' })
  for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 's3cret-token' }, { authorization: 'Basic s3cret-token' }] as Array<Record<string, string>>) {
    const answer = await call(spawner, 'GET', '/api/bot', undefined, headers)
    t.equal(answer.status, 401)
    t.same(answer.body, { error: 'Unauthorized' })
    t.equal(answer.headers.get('www-authenticate'), 'Bearer')
  }
  t.equal((await call(spawner, 'GET', '/api/bot', undefined, { authorization: 'Bearer s3cret-token' })).status, 200)
  t.equal((await call(spawner, 'GET', '/api/bot', undefined, { authorization: 'bearer  s3cret-token' })).status, 200, 'scheme is case-insensitive')
  t.equal((await call(spawner, 'GET', '/healthz')).status, 200)
})

t.test('state survives a restart through an atomically written state file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-spawner-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const path = join(dir, 'state.json')

  const first = await startReferenceSpawner(t, { stateFile: new StateFile(path) })
  await call(first, 'POST', '/api/bot/Ada/Lovelace', { level: 'GOVERNOR' })
  await call(first, 'POST', '/api/bot/Bob/Builder', { level: 'BUILDER', parent: 'Ada Lovelace' })
  await call(first, 'PATCH', '/api/bot/Bob/Builder', { action: 'start' })
  t.same((await readdir(dir)).sort(), ['state.json'], 'no temporary files are left behind')

  const second = await startReferenceSpawner(t, { stateFile: new StateFile(path) })
  t.same((await call(second, 'GET', '/api/bot')).body, ['Ada Lovelace', 'Bob Builder'])
  const bob = await call(second, 'GET', '/api/bot/Bob/Builder')
  t.match(bob.body, { parent: 'Ada Lovelace', containerStatus: [{ status: 'running', running: true }] })
  t.same((await call(second, 'GET', '/api/bot/Ada/Lovelace')).body.children, ['Bob Builder'])

  const saved = JSON.parse(await readFile(path, 'utf8'))
  t.equal(saved.version, 1)
  t.equal(saved.bots.length, 2)

  await writeFile(path, '{"not":"ours"}')
  await t.rejects(new StateFile(path).load(), /not a state file written by chorus spawner/)
})

t.test('concurrent saves land in order', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-spawner-'))
  t.teardown(async () => { await rm(dir, { recursive: true, force: true }) })
  const path = join(dir, 'state.json')
  const spawner = await startReferenceSpawner(t, { stateFile: new StateFile(path) })
  await Promise.all(Array.from({ length: 20 }, async (_, i) => await call(spawner, 'POST', `/api/bot/Bot/N${i}`, { level: 'ACTOR' })))
  const saved = JSON.parse(await readFile(path, 'utf8'))
  t.equal(saved.bots.length, 20)
  t.same((await readdir(dir)).sort(), ['state.json'])
})
