// The protocol spoken raw: JSON-RPC 2.0 over MCP Streamable HTTP, with no
// SDK in between, so that every status, header and error body is visible.

import t from 'tap'
import { REQUEST_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { postMcp, startReferenceSpawner, startTools, type Teardown } from './helpers.js'

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
}

async function setup (t: Teardown, token?: string): Promise<{ mcpUrl: string, url: string, session: (extra?: Record<string, string>) => Record<string, string> }> {
  const spawner = await startReferenceSpawner(t)
  const tools = await startTools(t, { spawnerPort: spawner.port, token, identity: { first: 'Root', last: 'Bot' } })
  const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
  const init = await postMcp(tools.mcpUrl, INITIALIZE, auth)
  const id = init.headers.get('mcp-session-id') ?? ''
  await postMcp(tools.mcpUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...auth, 'mcp-session-id': id })
  return { mcpUrl: tools.mcpUrl, url: tools.url, session: (extra = {}) => ({ ...auth, 'mcp-session-id': id, ...extra }) }
}

t.test('initialize negotiates the version and issues a session id', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const tools = await startTools(t, { spawnerPort: spawner.port })
  const init = await postMcp(tools.mcpUrl, INITIALIZE)
  t.equal(init.status, 200)
  t.match(init.headers.get('content-type'), /^application\/json/)
  t.match(init.headers.get('mcp-session-id'), /^[0-9a-f-]{36}$/)
  t.match(init.body, {
    jsonrpc: '2.0',
    id: 1,
    result: {
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: 'chorus-tools', version: String },
      instructions: /bot_list first/
    }
  })

  const future = await postMcp(tools.mcpUrl, { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2099-01-01' } })
  t.equal(future.body.result.protocolVersion, '2025-11-25', 'an unknown version is answered with the newest supported')

  const noVersion = await postMcp(tools.mcpUrl, { ...INITIALIZE, params: {} })
  t.equal(noVersion.status, 200)
  t.same(noVersion.body.error.code, -32602)
  t.equal(noVersion.body.error.message, 'Expected a string for params.protocolVersion but received undefined (undefined)')
  t.equal(noVersion.headers.get('mcp-session-id'), null, 'no session for a failed initialize')
})

t.test('requests, notifications and batches after initialize', async (t) => {
  const { mcpUrl, session } = await setup(t)

  const ping = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 'p', method: 'ping' }, session())
  t.same(ping.body, { jsonrpc: '2.0', id: 'p', result: {} })

  const notification = await postMcp(mcpUrl, { jsonrpc: '2.0', method: 'notifications/whatever' }, session())
  t.equal(notification.status, 202)
  t.equal(notification.text, '')

  const clientResponse = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 9, result: {} }, session())
  t.equal(clientResponse.status, 202, 'a response from the client is accepted and ignored')

  const list = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session({ 'mcp-protocol-version': '2025-06-18' }))
  t.same(list.body.result.tools.map((tool: { name: string }) => tool.name),
    ['bot_list', 'bot_get', 'bot_create', 'bot_start', 'bot_stop', 'bot_restart', 'bot_delete'])
  for (const tool of list.body.result.tools) {
    t.match(tool, { inputSchema: { type: 'object', additionalProperties: false }, outputSchema: { type: 'object', required: ['ok', 'message'] } })
  }

  const call = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'BotList', arguments: {} } }, session())
  t.same(call.body.result, {
    content: [{ type: 'text', text: '{"ok":true,"message":"Listed 0 bots.","payloadJson":"[]"}' }],
    structuredContent: { ok: true, message: 'Listed 0 bots.', payloadJson: '[]' },
    isError: false
  })

  const batch = await postMcp(mcpUrl, [
    { jsonrpc: '2.0', id: 'a', method: 'ping' },
    { jsonrpc: '2.0', method: 'notifications/progress' },
    { jsonrpc: '2.0', id: 'b', method: 'nope' },
    42
  ], session())
  t.equal(batch.status, 200)
  t.same(batch.body, [
    { jsonrpc: '2.0', id: 'a', result: {} },
    { jsonrpc: '2.0', id: 'b', error: { code: -32601, message: 'Method not found: nope' } },
    { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: a message must be a JSON object' } }
  ])

  const onlyNotifications = await postMcp(mcpUrl, [{ jsonrpc: '2.0', method: 'notifications/a' }, { jsonrpc: '2.0', method: 'notifications/b' }], session())
  t.equal(onlyNotifications.status, 202)
})

t.test('JSON-RPC errors use the standard codes and never leak stacks', async (t) => {
  const { mcpUrl, session } = await setup(t)
  const cases: Array<[string, unknown, number, unknown, number | string | null]> = [
    ['not JSON', '{"jsonrpc": "2.0", "id": 1, "method": ', 400, -32700, null],
    ['empty batch', '[]', 200, -32600, null],
    ['no jsonrpc', { id: 1, method: 'ping' }, 200, -32600, 1],
    ['wrong jsonrpc', { jsonrpc: '1.0', id: 1, method: 'ping' }, 200, -32600, 1],
    ['method not a string', { jsonrpc: '2.0', id: 1, method: 7 }, 200, -32600, 1],
    ['params not structured', { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' }, 200, -32600, 1],
    ['null id', { jsonrpc: '2.0', id: null, method: 'ping' }, 200, -32600, null],
    ['unknown method', { jsonrpc: '2.0', id: 1, method: 'resources/list' }, 200, -32601, 1],
    ['unknown tool', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bot_fly', arguments: {} } }, 200, -32602, 1],
    ['tool name missing', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} }, 200, -32602, 1],
    ['arguments not an object', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bot_get', arguments: [] } }, 200, -32602, 1],
    ['argument of the wrong type', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bot_get', arguments: { first: 1, last: 'x' } } }, 200, -32602, 1],
    ['required argument missing', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bot_create', arguments: { first: 'a', last: 'b' } } }, 200, -32602, 1],
    ['unexpected argument', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'bot_list', arguments: { all: 'yes' } } }, 200, -32602, 1]
  ]
  for (const [label, body, status, code, id] of cases) {
    const answer = await postMcp(mcpUrl, body, session())
    t.equal(answer.status, status, `${label}: status`)
    t.match(answer.body, { jsonrpc: '2.0', id, error: { code, message: String } }, `${label}: body`)
    t.notMatch(answer.text, /at .*\.ts:\d+|stack/i, `${label}: no stack`)
  }

  const typed = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'bot_get', arguments: { first: 1, last: 'x' } } }, session())
  t.same(typed.body.error, { code: -32602, message: 'Expected a string for arguments.first but received 1 (number)', data: { field: 'arguments.first' } })
  const extra = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'bot_list', arguments: { all: 'yes' } } }, session())
  t.equal(extra.body.error.message, 'Expected no arguments for arguments but received "all" (string)')
  const unknownName = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'bot_fly' } }, session())
  t.equal(unknownName.body.error.message,
    'Expected one of bot_list, bot_get, bot_create, bot_start, bot_stop, bot_restart, bot_delete for params.name but received "bot_fly" (string)')

  const still = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 7, method: 'ping' }, session())
  t.same(still.body, { jsonrpc: '2.0', id: 7, result: {} }, 'the session survives every bad message')
})

t.test('session rules', async (t) => {
  const { mcpUrl, session } = await setup(t)
  const missing = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
  t.equal(missing.status, 400)
  t.match(missing.body, { jsonrpc: '2.0', id: null, error: { code: -32600, message: /Mcp-Session-Id header is required/ } })

  const unknown = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-session-id': 'no-such-session' })
  t.equal(unknown.status, 404)
  t.match(unknown.body.error, { code: -32600, message: /Session not found/ })

  const badVersion = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, session({ 'mcp-protocol-version': '1999-01-01' }))
  t.equal(badVersion.status, 400)
  t.match(badVersion.body.error.message, /unsupported MCP-Protocol-Version "1999-01-01"/)

  for (const batch of [[INITIALIZE, { jsonrpc: '2.0', id: 2, method: 'ping' }], [INITIALIZE]]) {
    const inBatch = await postMcp(mcpUrl, batch)
    t.equal(inBatch.status, 400)
    t.match(inBatch.body.error.message, /initialize must be sent on its own/)
    t.equal(inBatch.headers.get('mcp-session-id'), null)
  }

  const end = await fetch(mcpUrl, { method: 'DELETE', headers: session(), signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS) })
  t.equal(end.status, 204)
  const after = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, session())
  t.equal(after.status, 404, 'a deleted session is gone')
  const again = await fetch(mcpUrl, { method: 'DELETE', headers: session(), signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS) })
  t.equal(again.status, 404)
})

t.test('HTTP-level rules: methods, media types, size, origin', async (t) => {
  const { mcpUrl, url, session } = await setup(t)
  const get = await fetch(mcpUrl, { headers: { accept: 'text/event-stream', ...session() }, signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS) })
  t.equal(get.status, 405)
  t.equal(get.headers.get('allow'), 'POST, DELETE')
  t.match(await get.json(), { error: /Method Not Allowed/, code: 'ERR_METHOD_NOT_ALLOWED' })

  const put = await fetch(mcpUrl, { method: 'PUT', signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS) })
  t.equal(put.status, 405)
  t.match(await put.json(), { code: 'ERR_METHOD_NOT_ALLOWED' })

  const notFound = await fetch(`${url}/elsewhere`, { signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS) })
  t.equal(notFound.status, 404)
  t.same(await notFound.json(), { error: 'Not Found', code: 'ERR_NOT_FOUND' })

  const text = await postMcp(mcpUrl, '{}', session({ 'content-type': 'text/plain' }))
  t.equal(text.status, 415)
  t.equal(text.body.code, 'ERR_UNSUPPORTED_MEDIA_TYPE')

  const html = await postMcp(mcpUrl, '{}', session({ accept: 'text/html' }))
  t.equal(html.status, 406)

  const huge = await postMcp(mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } }), session())
  t.equal(huge.status, 413)
  t.equal(huge.body.code, 'ERR_BODY_TOO_LARGE', 'the one code for a body over the limit, as the TTS service\'s')

  const foreign = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, session({ origin: 'http://evil.example' }))
  t.equal(foreign.status, 403)
  t.same(foreign.body, { error: 'Origin not allowed: http://evil.example', code: 'ERR_FORBIDDEN_ORIGIN' })
})

t.test('allowed origins pass', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const tools = await startTools(t, { spawnerPort: spawner.port, allowedOrigins: ['http://localhost:6274'] })
  const answer = await postMcp(tools.mcpUrl, INITIALIZE, { origin: 'http://localhost:6274' })
  t.equal(answer.status, 200)
})

t.test('bearer token on the tool server', async (t) => {
  const { mcpUrl, url, session } = await setup(t, 'tools-secret')
  for (const authorization of [undefined, 'Bearer wrong', 'Bearer tools-secret-and-more', 'tools-secret', 'Basic dG9vbHMtc2VjcmV0']) {
    const headers = { ...session() }
    if (authorization === undefined) delete headers.authorization
    else headers.authorization = authorization
    const answer = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers)
    t.equal(answer.status, 401, String(authorization))
    t.equal(answer.body.error, 'Unauthorized')
    t.equal(answer.headers.get('www-authenticate'), 'Bearer')
  }
  const ok = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, session())
  t.equal(ok.status, 200)
  const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS) })
  t.equal(health.status, 200, '/healthz needs no token')
  t.same(await health.json(), { status: 'ok' })
})

t.test('malformed traffic in one session leaves another untouched', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const tools = await startTools(t, { spawnerPort: spawner.port })
  const open = async (): Promise<Record<string, string>> => {
    const init = await postMcp(tools.mcpUrl, INITIALIZE)
    return { 'mcp-session-id': init.headers.get('mcp-session-id') ?? '' }
  }
  const noisy = await open()
  const quiet = await open()
  t.not(noisy['mcp-session-id'], quiet['mcp-session-id'])
  const garbage = [
    '\u0000\u0001', '{', '"just a string"', 'null', '[[[[]]]]', '['.repeat(100_000) + ']'.repeat(100_000),
    Buffer.from([0xff, 0xfe, 0x7b]).toString('latin1'),
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: { toString: 'x' }, arguments: null } }),
    JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bot_get', arguments: { first: 'a', last: 'b', __proto__: { x: 1 } } } })
  ]
  const answers = await Promise.all(garbage.map(async (body) => await postMcp(tools.mcpUrl, body, noisy)))
  for (const answer of answers) {
    t.ok(answer.status === 200 || answer.status === 400, `answered ${answer.status}`)
    t.notMatch(answer.text, /stack|\.ts:\d+/)
  }
  const ping = await postMcp(tools.mcpUrl, { jsonrpc: '2.0', id: 'still-here', method: 'ping' }, quiet)
  t.same(ping.body, { jsonrpc: '2.0', id: 'still-here', result: {} })
  const list = await postMcp(tools.mcpUrl, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'bot_list' } }, noisy)
  t.equal(list.body.result.structuredContent.ok, true, 'the noisy session itself still works')
})
