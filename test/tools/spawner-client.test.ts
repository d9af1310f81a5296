// The ky spawner client on its own: what goes on the wire, and the retry
// policy (GET only, never POST, PATCH or DELETE).

import t from 'tap'
import { createSpawnerClient } from '../../src/tools/spawner-client.js'
import { eventually } from '../helpers/hang-guard.js'
import { sendJson, spawnerConfig, startFakeSpawner } from './helpers.js'

t.test('headers, paths and form bodies', async (t) => {
  const spawner = await startFakeSpawner(t, (_request, response) => { sendJson(response, 200, {}) })
  const client = createSpawnerClient({ ...spawnerConfig({ spawnerPort: spawner.port }), token: 'tok-123' })
  t.equal(client.baseUrl, `http://127.0.0.1:${spawner.port}/`)
  await client.listBots()
  await client.getBot({ first: 'Zoë', last: 'Q&A' })
  await client.createBot({ first: 'A', last: 'B' }, { level: 'ACTOR', parent: 'P Q', email: 'a+b@example.org', model: 'M M' })
  await client.actOnBot({ first: 'A', last: 'B' }, 'restart')
  await client.deleteBot({ first: 'A', last: 'B' })
  t.same(spawner.requests.map((request) => [request.method, request.url, request.body]), [
    ['GET', '/api/bot', ''],
    ['GET', '/api/bot/Zo%C3%AB/Q%26A', ''],
    ['POST', '/api/bot/A/B', 'level=ACTOR&parent=P+Q&email=a%2Bb%40example.org&model=M+M'],
    ['PATCH', '/api/bot/A/B', 'action=restart'],
    ['DELETE', '/api/bot/A/B', '']
  ])
  for (const request of spawner.requests) {
    t.equal(request.headers.accept, 'application/json')
    t.equal(request.headers.authorization, 'Bearer tok-123')
  }
  t.equal(spawner.requests[2]?.headers['content-type'], 'application/x-www-form-urlencoded;charset=UTF-8')
  t.equal(spawner.requests[3]?.headers['content-type'], 'application/x-www-form-urlencoded;charset=UTF-8')
})

t.test('no Authorization header without a token', async (t) => {
  const spawner = await startFakeSpawner(t, (_request, response) => { sendJson(response, 200, []) })
  await createSpawnerClient(spawnerConfig({ spawnerPort: spawner.port })).listBots()
  t.equal(spawner.requests[0]?.headers.authorization, undefined)
})

t.test('GET is retried on a retriable status; POST, PATCH and DELETE never', async (t) => {
  let failures = 0
  const spawner = await startFakeSpawner(t, (request, response) => {
    if (request.method === 'GET' && failures >= 2) return sendJson(response, 200, ['Back Again'])
    if (request.method === 'GET') failures++
    sendJson(response, 503, { error: 'busy' })
  })
  const client = createSpawnerClient({ ...spawnerConfig({ spawnerPort: spawner.port }), retries: 2 })
  t.same(await client.listBots(), { kind: 'ok', status: 200, body: '["Back Again"]' })
  t.equal(spawner.requests.length, 3, 'two retries, then success')

  spawner.requests.length = 0
  const name = { first: 'A', last: 'B' }
  t.same(await client.createBot(name, { level: 'ACTOR' }), { kind: 'rejected', status: 503, reason: 'Service Unavailable', body: '{"error":"busy"}' })
  t.match(await client.actOnBot(name, 'start'), { kind: 'rejected', status: 503 })
  t.match(await client.deleteBot(name), { kind: 'rejected', status: 503 })
  t.same(spawner.requests.map((request) => request.method), ['POST', 'PATCH', 'DELETE'], 'one attempt each')
})

t.test('GET retries give up after the limit, and a 4xx is not retried', async (t) => {
  const spawner = await startFakeSpawner(t, (request, response) => {
    sendJson(response, request.url === '/api/bot' ? 502 : 404, { error: 'no' })
  })
  const client = createSpawnerClient({ ...spawnerConfig({ spawnerPort: spawner.port }), retries: 1 })
  t.match(await client.listBots(), { kind: 'rejected', status: 502, body: '{"error":"no"}' })
  t.equal(spawner.requests.length, 2)
  t.match(await client.getBot({ first: 'A', last: 'B' }), { kind: 'rejected', status: 404 })
  t.equal(spawner.requests.length, 3)
})

t.test('a caller abort stops the request', async (t) => {
  // The spawner holds the call until the test lets go: the abort comes while it waits.
  const held: Array<() => void> = []
  const spawner = await startFakeSpawner(t, (_request, response) => { held.push(() => { sendJson(response, 200, []) }) })
  const client = createSpawnerClient(spawnerConfig({ spawnerPort: spawner.port }))
  const caller = new AbortController()
  const outcome = client.listBots(caller.signal)
  await eventually('the call to reach the spawner', () => held.length > 0)
  caller.abort()
  t.equal((await outcome).kind, 'unreachable')
  for (const answer of held) answer()
  t.equal(spawner.requests.length, 1, 'aborted, not retried')
})
