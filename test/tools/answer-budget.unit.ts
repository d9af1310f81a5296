// The tool server's answer budget (CHORUS_TOOLS_MAX_ANSWER_BYTES): results
// hold their bytes until their answer is written; a result that would pass
// the budget is a refusal telling the agent to ask again, the others go
// through, and a written answer gives its bytes back. And a refusal's
// excerpt is cut by characters without spreading the body.

import t from 'tap'
import { startToolsHttpServer } from '../../src/tools/http-transport.js'
import { spawnerRejected } from '../../src/tools/result.js'
import { eventually } from '../helpers/hang-guard.js'
import { openRawSession, postMcp, sendJson, startFakeSpawner, toolsContext } from './helpers.js'

const BODY = JSON.stringify({ bots: 'x'.repeat(40_000) })
const BUDGET = 100 * 1024

const spawner = await startFakeSpawner(t, (request, response) => sendJson(response, 200, request.url === '/api/bot' ? BODY : '{}'))
const context = toolsContext({ spawnerPort: spawner.port, maxAnswerBytes: BUDGET })
const server = await startToolsHttpServer({ config: { host: '127.0.0.1', port: 0, path: '/mcp', allowedOrigins: [], maxSessions: 10, sessionsPerMinute: 1_000_000 }, context })
t.teardown(server.close)
const mcpUrl = `${server.url}/mcp`
const budget = context.calls.answers

const calls = (count: number, name: string, args: Record<string, unknown> = {}): unknown[] =>
  Array.from({ length: count }, (_, index) => ({ jsonrpc: '2.0', id: index, method: 'tools/call', params: { name, arguments: args } }))

interface Answer { result: { structuredContent: { ok: boolean, message: string, payloadJson?: string } } }

t.test('results past the budget are refused, the rest are sent whole, and a written answer gives its bytes back', async t => {
  const session = await openRawSession(mcpUrl)
  for (const round of [1, 2]) {
    const answer = await postMcp(mcpUrl, calls(5, 'bot_list'), session)
    const results = (answer.body as Answer[]).map(item => item.result.structuredContent)
    const sent = results.filter(result => result.ok)
    const dropped = results.filter(result => !result.ok)
    t.equal(sent.length, 1, `round ${round}: one answer of ~80 KB fits a budget of 100 KiB`)
    t.equal(sent[0]?.payloadJson, BODY, 'whole')
    t.equal(dropped.length, 4)
    for (const result of dropped) t.match(result.message, /^The tool server holds \d+ bytes of answers not yet sent, at most 102400 \(CHORUS_TOOLS_MAX_ANSWER_BYTES\): this result of \d+ bytes was dropped\. Call the tool again, alone or later\.$/)
    await eventually('the written answer to give its bytes back', () => budget.held === 0)
  }
  const small = await postMcp(mcpUrl, calls(32, 'bot_get', { first: 'Some', last: 'Bot' }), session)
  t.ok((small.body as Answer[]).every(item => item.result.structuredContent.ok), 'small answers all fit')
})

t.test('a refusal\'s excerpt: the first 240 characters (code points), however long the body', async t => {
  const emoji = '\u{1F600}'
  t.equal(spawnerRejected(500, '', emoji.repeat(100_000)).excerpt, emoji.repeat(240) + '...')
  t.equal(spawnerRejected(500, '', 'a'.repeat(239) + emoji).excerpt, 'a'.repeat(239) + emoji, 'exactly 240: whole')
  t.equal(spawnerRejected(500, '', 'a'.repeat(240) + emoji).excerpt, 'a'.repeat(240) + '...')
  t.equal(spawnerRejected(500, '', '').excerpt, '<empty>')
})
