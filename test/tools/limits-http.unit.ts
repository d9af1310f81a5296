// The tool server's limits over raw HTTP: a flood of initialize calls cannot
// push out active sessions, new sessions per address are rate-limited, a
// long batch is refused whole, and spawner calls run at most N at a time.

import type { ServerResponse } from 'node:http'
import t from 'tap'
import type { SpawnerCallLimits } from '../../src/tools/spawner-limits.js'
import { eventually } from '../helpers/hang-guard.js'
import { INITIALIZE, openRawSession, postMcp, sendJson, startFakeSpawner, startReferenceSpawner, startTools, type Teardown } from './helpers.js'

const PING = { jsonrpc: '2.0', id: 'p', method: 'ping' }

function listCalls (count: number, prefix = 'l'): unknown[] {
  return Array.from({ length: count }, (_, index) => ({ jsonrpc: '2.0', id: `${prefix}${index}`, method: 'tools/call', params: { name: 'bot_list', arguments: {} } }))
}

/** A spawner that holds every call until the test answers what it holds. */
async function holdingSpawner (t: Teardown): Promise<{ port: number, held: () => number, total: () => number, answerHeld: () => number }> {
  let held: ServerResponse[] = []
  let total = 0
  const spawner = await startFakeSpawner(t, (_request, response: ServerResponse) => {
    held.push(response)
    total++
  })
  return {
    port: spawner.port,
    held: () => held.length,
    total: () => total,
    answerHeld: () => {
      const answering = held
      held = []
      for (const response of answering) sendJson(response, 200, [])
      return answering.length
    }
  }
}

/**
 * Answers `calls` spawner calls in rounds. A round is answered once every
 * call not yet answered is either held by the spawner or waiting for a slot
 * in the tool server (its limits' queue): what the spawner holds then is
 * all the limits let run at once, no timing involved. Returns each round's count.
 */
async function answerInRounds (spawner: { held: () => number, answerHeld: () => number }, limits: SpawnerCallLimits, calls: number): Promise<number[]> {
  const rounds: number[] = []
  let answered = 0
  while (answered < calls) {
    await eventually('every unanswered call held by the spawner or queued', () => spawner.held() > 0 && spawner.held() + limits.queue.waiting === calls - answered)
    rounds.push(spawner.held())
    answered += spawner.answerHeld()
  }
  return rounds
}

t.test('a flood of initialize calls gets 503 once every session is active; the old sessions keep working', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const tools = await startTools(t, { spawnerPort: spawner.port, maxSessions: 5 })
  const first = await openRawSession(tools.mcpUrl)
  for (let index = 1; index < 5; index++) await openRawSession(tools.mcpUrl)

  const refused = await postMcp(tools.mcpUrl, INITIALIZE)
  t.equal(refused.status, 503)
  t.match(refused.headers.get('retry-after'), /^\d+$/)
  t.ok(Number(refused.headers.get('retry-after')) >= 1 && Number(refused.headers.get('retry-after')) <= 60)
  t.equal(refused.headers.get('mcp-session-id'), null)
  t.match(refused.body, { jsonrpc: '2.0', id: null, error: { code: -32000, message: /^Service Unavailable: all 5 sessions are in use; retry in \d+ s$/ } })

  t.same((await postMcp(tools.mcpUrl, PING, first)).body, { jsonrpc: '2.0', id: 'p', result: {} }, 'the first session was not pushed out')
  t.equal((await fetch(tools.mcpUrl, { method: 'DELETE', headers: first })).status, 204)
  t.equal((await postMcp(tools.mcpUrl, INITIALIZE)).status, 200, 'a closed session makes room')
})

t.test('new sessions per remote address per minute: 429 with Retry-After beyond the bound', async (t) => {
  const spawner = await startReferenceSpawner(t)
  const tools = await startTools(t, { spawnerPort: spawner.port, sessionsPerMinute: 3 })
  const sessions = [await openRawSession(tools.mcpUrl), await openRawSession(tools.mcpUrl), await openRawSession(tools.mcpUrl)]
  const limited = await postMcp(tools.mcpUrl, INITIALIZE)
  t.equal(limited.status, 429)
  const retryAfter = Number(limited.headers.get('retry-after'))
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
  t.match(limited.body, {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32000, message: /^Too Many Requests: at most 3 new sessions per minute from one address; retry in \d+ s$/ }
  })
  t.equal(limited.headers.get('mcp-session-id'), null)
  for (const session of sessions) t.equal((await postMcp(tools.mcpUrl, PING, session)).status, 200, 'existing sessions are untouched')
})

t.test('a batch over the maximum gets one -32600 and makes no spawner call', async (t) => {
  const spawner = await holdingSpawner(t)
  const tools = await startTools(t, { spawnerPort: spawner.port })
  const session = await openRawSession(tools.mcpUrl)
  const answer = await postMcp(tools.mcpUrl, listCalls(1000), session)
  t.equal(answer.status, 400)
  t.same(answer.body, {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: 'Invalid Request: a batch may hold at most 32 messages but this one holds 1000' }
  })
  t.equal(spawner.total(), 0)
  t.equal((await postMcp(tools.mcpUrl, listCalls(33), session)).status, 400, 'one over the default of 32')
})

t.test('a batch at the maximum makes at most calls-per-session spawner calls at once', async (t) => {
  const spawner = await holdingSpawner(t)
  const tools = await startTools(t, { spawnerPort: spawner.port, maxBatch: 20, callsPerSession: 3, spawnerCalls: 100 })
  const session = await openRawSession(tools.mcpUrl)
  const answering = postMcp(tools.mcpUrl, listCalls(20), session)
  t.same(await answerInRounds(spawner, tools.context.calls, 20), [3, 3, 3, 3, 3, 3, 2], 'never more than 3 at once, and 3 do run together')
  const answer = await answering
  t.equal(answer.status, 200)
  t.equal(answer.body.length, 20)
  t.ok(answer.body.every((item: any) => item.result.structuredContent.ok === true), 'every call was answered, queued ones too')
  t.equal(spawner.total(), 20)
})

t.test('sessions together make at most spawner-calls calls at once', async (t) => {
  const spawner = await holdingSpawner(t)
  const tools = await startTools(t, { spawnerPort: spawner.port, maxBatch: 10, callsPerSession: 4, spawnerCalls: 5 })
  const sessions = await Promise.all([1, 2, 3].map(async () => await openRawSession(tools.mcpUrl)))
  const answering = Promise.all(sessions.map(async (session, index) => await postMcp(tools.mcpUrl, listCalls(10, `s${index}-`), session)))
  const rounds = await answerInRounds(spawner, tools.context.calls, 30)
  t.equal(Math.max(...rounds), 5, 'never more than 5 at once in total, more than one session\'s share of 4')
  t.equal(rounds[0], 5, 'and 5 do run together')
  const answers = await answering
  for (const answer of answers) t.equal(answer.body.length, 10)
  t.equal(spawner.total(), 30)
})

t.test('a queued call that is cancelled never reaches the spawner', async (t) => {
  const held: Array<() => void> = []
  const spawner = await startFakeSpawner(t, (_request, response) => { held.push(() => { sendJson(response, 200, []) }) })
  const tools = await startTools(t, { spawnerPort: spawner.port, callsPerSession: 1, timeoutMs: 30_000 })
  const session = await openRawSession(tools.mcpUrl)
  const running = postMcp(tools.mcpUrl, listCalls(2, 'q'), session)
  await eventually('the first call to reach the spawner', () => spawner.requests.length > 0, 5)
  const cancelled = await postMcp(tools.mcpUrl, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'q1' } }, session)
  t.equal(cancelled.status, 202)
  held.shift()?.()
  const answer = await running
  t.equal(spawner.requests.length, 1, 'the cancelled call left the queue without a request')
  t.match(answer.body[0], { id: 'q0', result: { structuredContent: { ok: true } } })
  t.match(answer.body[1], { id: 'q1', result: { structuredContent: { ok: false, error: /^Request cancelled while waiting for a free spawner call slot/ } } })
})
