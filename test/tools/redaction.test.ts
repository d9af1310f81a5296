// Secrets never leave in results: the spawner client redacts whole bodies
// before the 240-character excerpt is cut, and catches echoes that are
// case-changed, percent-encoded or JSON-escaped.

import fc from 'fast-check'
import t from 'tap'
import { redactSecrets } from '../../src/tools/redact.js'
import { callTool, connectHttp, INITIALIZE, postMcp, sendJson, startFakeSpawner, startTools, toolsClient } from './helpers.js'

const TOKEN = 'Sp4wner/Token+"q"\\end~0123'
const ME = { first: 'Me', last: 'Bot' }

/** The forms a spawner might echo the token in. */
const ECHOES: Record<string, (secret: string) => string> = {
  verbatim: (secret) => secret,
  'upper case': (secret) => secret.toUpperCase(),
  'lower case': (secret) => secret.toLowerCase(),
  encodeURIComponent: (secret) => encodeURIComponent(secret),
  'percent-encoded, lowercase hex': (secret) => encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
  'every byte percent-encoded, uppercase hex': (secret) => [...Buffer.from(secret)].map((byte) => '%' + byte.toString(16).toUpperCase().padStart(2, '0')).join(''),
  'JSON-escaped': (secret) => JSON.stringify(secret).slice(1, -1),
  '\\u-escaped': (secret) => [...secret].map((character) => '\\u' + character.charCodeAt(0).toString(16).padStart(4, '0')).join(''),
  'JSON-escaped with \\/': (secret) => JSON.stringify(secret).slice(1, -1).replaceAll('/', '\\/')
}

t.test('redactSecrets: every form, in a longer text', async (t) => {
  for (const [form, echo] of Object.entries(ECHOES)) {
    t.equal(redactSecrets(`before ${echo(TOKEN)} after ${echo(TOKEN)}`, [TOKEN]), 'before [redacted] after [redacted]', form)
  }
  t.equal(redactSecrets('nothing here', [TOKEN, '']), 'nothing here')
  t.equal(redactSecrets('a Sp4wner/Token+"q"\\end~012 b', [TOKEN]), 'a Sp4wner/Token+"q"\\end~012 b', 'a shorter string is not the secret')
  t.equal(redactSecrets('one two', ['one', 'two']), '[redacted] [redacted]', 'several secrets')
})

t.test('redactSecrets: no form of a random token survives, mixed forms neither', async (t) => {
  const token = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)), minLength: 8, maxLength: 40 })
  const perCharacter = fc.constantFrom<(character: string) => string>(
    (character) => character,
    (character) => character.toUpperCase(),
    (character) => encodeURIComponent(character),
    (character) => '%' + character.charCodeAt(0).toString(16).padStart(2, '0'),
    (character) => JSON.stringify(character).slice(1, -1),
    (character) => '\\u' + character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')
  )
  t.doesNotThrow(() => fc.assert(fc.property(token, fc.array(perCharacter, { minLength: 40, maxLength: 40 }), fc.string({ maxLength: 30 }), (secret, forms, around) => {
    const echo = [...secret].map((character, index) => forms[index]!(character)).join('')
    const redacted = redactSecrets(around + echo + around, [secret])
    return redacted.includes('[redacted]') && !redacted.includes(echo)
  }), { numRuns: 300 }))
})

t.test('a token straddling the 240-character cut leaves no prefix in the excerpt', async (t) => {
  for (const [form, echo] of Object.entries(ECHOES)) {
    const body = 'x'.repeat(232) + echo(TOKEN) + 'y'.repeat(50)
    const spawner = await startFakeSpawner(t, (_request, response) => { sendJson(response, 500, body) })
    const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ME, spawnerToken: TOKEN })
    const { result, text } = await callTool(client, 'bot_delete', { first: 'A', last: 'B' })
    t.equal(result.excerpt, 'x'.repeat(232) + '[redacte...', `${form}: redacted first, then cut`)
    t.equal(result.message, `Spawner API 500 Internal Server Error: ${result.excerpt ?? ''}`)
    t.notMatch(text, /Sp4w|%53%70|\\u0053\\u0070/i, `${form}: not even the first characters`)
  }
})

t.test('the tool server\'s own token is redacted from spawner answers too', async (t) => {
  const toolsToken = 'tools-own-token-42'
  const spawner = await startFakeSpawner(t, (_request, response) => { sendJson(response, 403, { echo: toolsToken.toUpperCase(), encoded: encodeURIComponent(toolsToken) }) })
  const tools = await startTools(t, { spawnerPort: spawner.port, identity: ME, spawnerToken: TOKEN, token: toolsToken })
  const client = await connectHttp(t, tools.mcpUrl, { authorization: `Bearer ${toolsToken}` })
  const { result } = await callTool(client, 'bot_delete', { first: 'A', last: 'B' })
  t.equal(result.excerpt, '{"echo":"[redacted]","encoded":"[redacted]"}')
})

t.test('JSON-RPC errors never echo the bearer token, sent by mistake as a method, tool name or argument key', async (t) => {
  const bearer = 'Bearer-Secret-7f3a9c'
  const spawner = await startFakeSpawner(t, (_request, response) => { sendJson(response, 200, '[]') })
  const tools = await startTools(t, { spawnerPort: spawner.port, identity: ME, token: bearer })
  const auth = { authorization: `Bearer ${bearer}` }
  const init = await postMcp(tools.mcpUrl, INITIALIZE, auth)
  const session = { ...auth, 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-06-18' }
  const mistakes = [
    { jsonrpc: '2.0', id: 2, method: bearer },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: bearer, arguments: {} } },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'bot_get', arguments: { first: 'A', last: 'B', [bearer]: 1 } } }
  ]
  for (const message of mistakes) {
    const answer = await postMcp(tools.mcpUrl, message, session)
    t.ok(answer.body?.error !== undefined, `an error for ${JSON.stringify(message.params ?? message.method).slice(0, 40)}`)
    t.notMatch(answer.text, bearer, 'the token is not in the answer')
    t.match(answer.text, '[redacted]', 'where it stood, [redacted]')
  }
})
