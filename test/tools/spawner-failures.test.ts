// Every failure row of the DataToolResult contract, through the official
// client: the spawner refuses, cannot be reached, is too slow, wants another
// token; arguments that pass the schema but break the rules.

import t from 'tap'
import { callTool, closedPort, memoryLogger, sendJson, startFakeSpawner, startReferenceSpawner, toolsClient } from './helpers.js'

const ME = { first: 'Me', last: 'Myself' }

t.test('non-2xx: status, reason and a 240-character excerpt', async (t) => {
  const long = 'x'.repeat(230) + '0123456789' + 'TAIL-NOT-SHOWN'
  const answers: Array<[number, string, string]> = [
    [500, 'Internal Server Error', long],
    [503, 'Service Unavailable', ''],
    [418, 'Short And Stout', '{"error":"teapot"}'],
    [404, '', '{"error":"Bot not found: A B."}'],
    [500, 'Internal Server Error', 'é'.repeat(240)],
    [500, 'Internal Server Error', '😀'.repeat(241)]
  ]
  const spawner = await startFakeSpawner(t, (_request, response) => {
    const [status, reason, body] = answers.shift() ?? [500, '', '']
    sendJson(response, status, body, reason)
  })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ME })

  const first = await callTool(client, 'bot_get', { first: 'A', last: 'B' })
  const excerpt = 'x'.repeat(230) + '0123456789...'
  t.same(first.result, { ok: false, message: `Spawner API 500 Internal Server Error: ${excerpt}`, status: 500, excerpt })
  t.equal(first.isError, true)

  t.same((await callTool(client, 'bot_delete', { first: 'A', last: 'B' })).result,
    { ok: false, message: 'Spawner API 503 Service Unavailable: <empty>', status: 503, excerpt: '<empty>' })
  t.same((await callTool(client, 'bot_create', { first: 'A', last: 'B', level: 'ACTOR' })).result,
    { ok: false, message: 'Spawner API 418 Short And Stout: {"error":"teapot"}', status: 418, excerpt: '{"error":"teapot"}' })
  t.equal((await callTool(client, 'bot_delete', { first: 'A', last: 'B' })).result.message,
    'Spawner API 404 Not Found: {"error":"Bot not found: A B."}', 'a missing reason phrase falls back to the standard one')
  t.equal((await callTool(client, 'bot_delete', { first: 'A', last: 'B' })).result.excerpt, 'é'.repeat(240), 'exactly 240 characters: no ellipsis')
  t.equal((await callTool(client, 'bot_delete', { first: 'A', last: 'B' })).result.excerpt, '😀'.repeat(240) + '...', 'characters, not UTF-16 units')
})

t.test('spawner down: a transport failure with the error text', async (t) => {
  const port = await closedPort()
  const client = await toolsClient(t, { spawnerPort: port, identity: ME })
  const { result, isError } = await callTool(client, 'bot_list')
  t.equal(isError, true)
  t.equal(result.ok, false)
  t.match(result.error, new RegExp(`^fetch failed \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\): GET http://127\\.0\\.0\\.1:${port}/api/bot$`))
  t.equal(result.message, `Spawner API request failed: ${result.error}`)
  t.same(Object.keys(result).sort(), ['error', 'message', 'ok'])
})

t.test('spawner slow: the explicit timeout ends the call', async (t) => {
  // The slow answers are never sent: the call coming back at all shows it
  // did not wait for them (event order, not a wall-clock bound).
  let answered = false
  const spawner = await startFakeSpawner(t, async (request, response) => {
    if (request.url.endsWith('/Slow/Body')) {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"partial":')
      return
    }
    response.once('finish', () => { answered = true })
  })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ME, timeoutMs: 200 })
  const { result } = await callTool(client, 'bot_list')
  t.equal(answered, false, 'the tool answered while the spawner had not')
  t.same(result, {
    ok: false,
    message: `Spawner API request failed: Request timed out after 200 ms: GET http://127.0.0.1:${spawner.port}/api/bot`,
    error: `Request timed out after 200 ms: GET http://127.0.0.1:${spawner.port}/api/bot`
  })
  const body = await callTool(client, 'bot_get', { first: 'Slow', last: 'Body' })
  t.equal(body.result.error, `response body not received within 200 ms: GET http://127.0.0.1:${spawner.port}/api/bot/Slow/Body`)
})

t.test('spawner token: a wrong one is a 401 row, the right one works, neither is ever shown', async (t) => {
  const spawner = await startReferenceSpawner(t, { token: 'right-token' })
  const wrong = await toolsClient(t, { spawnerPort: spawner.port, identity: ME, spawnerToken: 'wrong-token' })
  t.same((await callTool(wrong, 'bot_list')).result, {
    ok: false,
    message: 'Spawner API 401 Unauthorized: {"error":"Unauthorized"}',
    status: 401,
    excerpt: '{"error":"Unauthorized"}'
  })
  const none = await toolsClient(t, { spawnerPort: spawner.port, identity: ME })
  t.equal((await callTool(none, 'bot_list')).result.status, 401)
  const right = await toolsClient(t, { spawnerPort: spawner.port, identity: ME, spawnerToken: 'right-token' })
  t.equal((await callTool(right, 'bot_list')).result.ok, true)
})

t.test('a spawner echoing the token gets it redacted, and logs never hold it', async (t) => {
  const token = 'echoed-secret-token'
  const spawner = await startFakeSpawner(t, (request, response) => {
    sendJson(response, request.method === 'GET' ? 200 : 400, { saw: request.headers.authorization })
  })
  const log = memoryLogger('debug')
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ME, spawnerToken: token, logger: log.logger })
  const ok = await callTool(client, 'bot_list')
  const refused = await callTool(client, 'bot_delete', { first: 'A', last: 'B' })
  t.equal(spawner.requests[0]?.headers.authorization, `Bearer ${token}`)
  t.equal(ok.result.payloadJson, '{"saw":"Bearer [redacted]"}')
  t.equal(refused.result.excerpt, '{"saw":"Bearer [redacted]"}')
  t.notMatch(ok.text + refused.text, token)
  t.match(log.text(), /tool called/)
  t.notMatch(log.text(), token)
})

t.test('bad names are refused without calling the spawner', async (t) => {
  const spawner = await startFakeSpawner(t, (_request, response) => { sendJson(response, 200, {}) })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ME })
  const cases: Array<[string, Record<string, string>, string]> = [
    ['bot_get', { first: '', last: 'B' }, 'Expected a non-blank name for first but received "" (string)'],
    ['bot_get', { first: 'A', last: '   ' }, 'Expected a non-blank name for last but received "   " (string)'],
    ['bot_delete', { first: '../x', last: 'B' }, 'Expected a name without "/" or "\\" for first but received "../x" (string)'],
    ['bot_delete', { first: 'a/b', last: 'B' }, 'Expected a name without "/" or "\\" for first but received "a/b" (string)'],
    ['bot_delete', { first: 'A', last: '..' }, 'Expected a name other than "." or ".." for last but received ".." (string)'],
    ['bot_get', { first: 'a\\b', last: 'B' }, 'Expected a name without "/" or "\\" for first but received "a\\\\b" (string)'],
    ['bot_get', { first: 'a\u0000b', last: 'B' }, 'Expected a name without control characters for first but received "a\\u0000b" (string)'],
    ['bot_get', { first: 'A', last: 'B\nC' }, 'Expected a name without control characters for last but received "B\\nC" (string)'],
    ['bot_get', { first: 'Two Words', last: 'B' }, 'Expected a name without whitespace for first but received "Two Words" (string)'],
    ['bot_get', { first: 'x'.repeat(65), last: 'B' }, `Expected a name of at most 64 characters for first but received "${'x'.repeat(60)}…" (string)`],
    ['bot_start', { first: 'a/b', last: 'B' }, 'Expected a name without "/" or "\\" for first but received "a/b" (string)'],
    ['bot_create', { first: 'A', last: 'B', level: ' ' }, 'Expected a level (GOVERNOR, BUILDER or ACTOR) for level but received " " (string)'],
    ['bot_create', { first: 'A', last: 'B', level: 'ACTOR', parent: 'Single' }, 'Expected a full name "First Last" for parent but received "Single" (string)'],
    ['bot_create', { first: 'A', last: 'B', level: 'ACTOR', parent: '../x y' }, 'Expected a full name "First Last" for parent but received "../x y" (string)'],
    ['bot_create', { first: 'A', last: 'B', level: 'ACTOR', model: 'm\u0007' }, 'Expected text without control characters for model but received "m\\u0007" (string)']
  ]
  for (const [tool, args, message] of cases) {
    const { result, isError } = await callTool(client, tool, args)
    t.same(result, { ok: false, message }, `${tool} ${JSON.stringify(args)}`)
    t.equal(isError, true)
  }
  t.equal(spawner.requests.length, 0, 'no request reached the spawner')
})

t.test('names that are merely odd are encoded, not trusted', async (t) => {
  const spawner = await startFakeSpawner(t, (_request, response) => { sendJson(response, 404, { error: 'Bot not found.' }) })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ME })
  await callTool(client, 'bot_get', { first: '%2F', last: 'x' })
  await callTool(client, 'bot_get', { first: '%2e%2e', last: '?a=b#c' })
  await callTool(client, 'bot_get', { first: 'Zoë', last: '  Padded  ' })
  t.same(spawner.requests.map((request) => request.url), [
    '/api/bot/%252F/x',
    '/api/bot/%252e%252e/%3Fa%3Db%23c',
    '/api/bot/Zo%C3%AB/Padded'
  ])
})

t.test('a hostile name on the reference spawner reaches only its own bot', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const client = await toolsClient(t, { spawnerPort: spawner.port })
  t.equal((await callTool(client, 'bot_create', { first: '%2F', last: 'x', level: 'ACTOR' })).result.ok, true)
  t.same(spawner.store.list(), ['%2F x'])
  const missing = await callTool(client, 'bot_get', { first: '%2F', last: 'y' })
  t.equal(missing.result.message, 'Spawner API 404 Not Found: {"error":"Bot not found: %2F y."}')
})
