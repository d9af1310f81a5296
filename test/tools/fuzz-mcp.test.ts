// Property-based checks of POST /mcp: arbitrary JSON-RPC messages, batches,
// garbage bodies and headers get only the statuses the README documents,
// every JSON-RPC answer is well-formed with a standard code (never -32603,
// which would be a bug), and the server still serves a new session after.
// Bounded in count (numRuns); a longer run is `npm run fuzz`.

import fc from 'fast-check'
import t from 'tap'
import { INITIALIZE, openRawSession, postMcp, startReferenceSpawner, startTools, type RawAnswer } from './helpers.js'
import { fuzzParameters } from '../helpers/fuzz.js'

const spawner = await startReferenceSpawner(t)
const tools = await startTools(t, { spawnerPort: spawner.port, identity: { first: 'Root', last: 'Bot' }, maxBatch: 16 })
spawner.store.create({ first: 'Root', last: 'Bot' }, { level: 'GOVERNOR' })
const session = await openRawSession(tools.mcpUrl)

const DOCUMENTED_STATUSES = new Set([200, 202, 400, 404, 406, 413, 415, 429, 503])
const RPC_CODES = new Set([-32700, -32600, -32601, -32602, -32000])

function isResponse (value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const response = value as Record<string, unknown>
  if (response.jsonrpc !== '2.0' || !('id' in response)) return false
  if ('result' in response) return !('error' in response)
  const error = response.error as Record<string, unknown> | undefined
  return typeof error === 'object' && error !== null && typeof error.message === 'string' && RPC_CODES.has(error.code as number)
}

/** The documented status, and a body of the documented shape for it. */
function wellFormed (answer: RawAnswer): boolean {
  if (!DOCUMENTED_STATUSES.has(answer.status)) return false
  if (answer.status === 202) return answer.text === ''
  if (answer.status === 406 || answer.status === 415 || answer.status === 413) {
    return typeof answer.body?.error === 'string' && typeof answer.body?.code === 'string'
  }
  if (Array.isArray(answer.body)) return answer.body.length > 0 && answer.body.every(isResponse)
  return isResponse(answer.body)
}

const anyJson = fc.jsonValue({ maxDepth: 3 })
const name = fc.oneof(fc.constantFrom('Root', 'Bot', 'Ada', '', ' ', '..', 'a/b', 'x'.repeat(70), 'Zoë', '\u0000'), fc.string({ maxLength: 12 }))
const toolCall = fc.record({
  name: fc.oneof(fc.constantFrom('bot_list', 'bot_get', 'bot_create', 'bot_start', 'bot_stop', 'bot_restart', 'bot_delete', 'BotList', 'bot_fly'), anyJson),
  arguments: fc.oneof(
    fc.record({ first: name, last: name, level: fc.constantFrom('ACTOR', 'builder', 'GOVERNOR', 'king', ''), parent: fc.constantFrom('Root Bot', 'No One', 'bad'), email: fc.string(), model: fc.string() }, { requiredKeys: [] }),
    anyJson
  )
}, { requiredKeys: [] })
const message = fc.oneof(
  fc.record({
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('2.0'), anyJson),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.double(), anyJson),
    method: fc.oneof(fc.constantFrom('ping', 'tools/list', 'tools/call', 'tools/call', 'initialize', 'notifications/cancelled', 'notifications/initialized', 'resources/list', ''), anyJson),
    params: fc.oneof(toolCall, fc.record({ requestId: fc.oneof(fc.integer(), fc.string()) }), fc.record({ protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2099-01-01'), anyJson) }), anyJson),
    result: anyJson,
    error: anyJson
  }, { requiredKeys: [] }),
  anyJson
)
const payload = fc.oneof(
  message.map(value => JSON.stringify(value)),
  fc.array(message, { maxLength: 24 }).map(values => JSON.stringify(values)),
  fc.string({ unit: 'binary', maxLength: 120 })
)
const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map(code => String.fromCharCode(code)), maxLength: 40 }).map(value => value.trim())
const headers = fc.record({
  'content-type': fc.oneof(fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded'), printable),
  accept: fc.oneof(fc.constantFrom('application/json, text/event-stream', 'application/json', '*/*', 'text/html', ''), printable),
  'mcp-session-id': fc.oneof(fc.constant('<session>'), fc.constant('<session>'), fc.uuid(), printable),
  'mcp-protocol-version': fc.oneof(fc.constantFrom('2025-06-18', '2024-11-05', '1999-01-01'), printable)
}, { requiredKeys: ['content-type'] })

function withSession (given: Record<string, string>): Record<string, string> {
  const sent: Record<string, string> = {}
  for (const [key, value] of Object.entries(given)) {
    if (value === '' && key !== 'accept') continue
    sent[key] = value === '<session>' ? session['mcp-session-id'] : value
  }
  return sent
}

t.test('arbitrary messages, batches and bodies: documented statuses, well-formed answers', async t => {
  await fc.assert(fc.asyncProperty(payload, async (body) => {
    const answer = await postMcp(tools.mcpUrl, body, session)
    if (!wellFormed(answer)) throw new Error(`${body.slice(0, 200)} → ${answer.status} ${answer.text.slice(0, 300)}`)
  }), fuzzParameters(200))
  t.equal((await postMcp(tools.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'ping' }, session)).status, 200, 'the session still works')
})

t.test('arbitrary headers: documented statuses, well-formed answers', async t => {
  const seen = new Set<number>()
  await fc.assert(fc.asyncProperty(headers, message, async (given, value) => {
    const sent = withSession(given)
    const answer = await postMcp(tools.mcpUrl, JSON.stringify(value), sent)
    seen.add(answer.status)
    if (!wellFormed(answer)) throw new Error(`${JSON.stringify(sent)} ${JSON.stringify(value).slice(0, 200)} → ${answer.status} ${answer.text.slice(0, 300)}`)
  }), fuzzParameters(150))
  t.ok(seen.size > 1, `the headers lead to more than one outcome (${[...seen].sort().join(', ')})`)
})

t.test('the server serves a new session afterwards', async t => {
  t.equal((await fetch(tools.url + '/healthz')).status, 200)
  const init = await postMcp(tools.mcpUrl, INITIALIZE)
  t.equal(init.status, 200)
  const fresh = { 'mcp-session-id': init.headers.get('mcp-session-id') ?? '' }
  const list = await postMcp(tools.mcpUrl, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'bot_list', arguments: {} } }, fresh)
  t.equal(list.body.result.structuredContent.ok, true)
})
