// A spawner that answers with hundreds of megabytes: the tool server reads
// at most SPAWNER_MAX_BODY_BYTES of it, closes the connection on the rest,
// answers a clear ok:false row and keeps serving.

import { once } from 'node:events'
import type { ServerResponse } from 'node:http'
import t from 'tap'
import { callTool, startFakeSpawner, toolsClient } from './helpers.js'

const ME = { first: 'Me', last: 'Myself' }
const HUGE = 300 * 1024 * 1024
const LIMIT = 64 * 1024

/** Streams `total` bytes of 'x' as the reader takes them; resolves with what was written before the reader left. */
async function streamHuge (response: ServerResponse, status: number, total: number): Promise<number> {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(total) })
  const chunk = Buffer.alloc(64 * 1024, 'x')
  const closed = once(response, 'close')
  let written = 0
  while (written < total && !response.destroyed) {
    written += chunk.length
    if (!response.write(chunk)) {
      const drained = new Promise<void>(resolve => {
        const done = (): void => { response.off('drain', done); response.off('close', done); resolve() }
        response.on('drain', done).on('close', done)
      })
      await drained
    }
  }
  if (!response.destroyed) response.end()
  await closed
  return written
}

t.test('300 MB answers, 2xx and 5xx: a bounded read, a clear row, the connection dropped', async t => {
  const senders: Array<Promise<number>> = []
  const statuses = [200, 500]
  const spawner = await startFakeSpawner(t, async (request, response) => {
    if (request.url === '/api/bot/Small/Answer') {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end('{"name":"Small Answer"}')
      return
    }
    senders.push(streamHuge(response, statuses.shift() ?? 200, HUGE))
  })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ME, maxBodyBytes: LIMIT, timeoutMs: 60_000 })

  const ok = await callTool(client, 'bot_list')
  t.equal(ok.isError, true)
  const error = `200 answer's body is over ${LIMIT} bytes (SPAWNER_MAX_BODY_BYTES) and was not read: GET http://127.0.0.1:${spawner.port}/api/bot`
  t.same(ok.result, { ok: false, message: `Spawner API request failed: ${error}`, error })

  const failed = await callTool(client, 'bot_get', { first: 'A', last: 'B' })
  t.equal(failed.result.ok, false)
  t.equal(failed.result.status, 500)
  t.equal(failed.result.excerpt, 'x'.repeat(240) + '...', 'the excerpt comes from the start that was read')

  const written = await Promise.all(senders)
  t.equal(written.length, 2)
  for (const bytes of written) t.ok(bytes < HUGE, `the spawner stopped sending when the tool server closed the connection (${bytes} of ${HUGE} bytes)`)
  const small = await callTool(client, 'bot_get', { first: 'Small', last: 'Answer' })
  t.same(small.result, { ok: true, message: small.result.message, payloadJson: '{"name":"Small Answer"}' }, 'the server still answers')
})

t.test('an answer of exactly the limit is read whole', async t => {
  const body = JSON.stringify({ bots: 'y'.repeat(LIMIT - 11) })
  t.equal(Buffer.byteLength(body), LIMIT)
  const spawner = await startFakeSpawner(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end(body)
  })
  const client = await toolsClient(t, { spawnerPort: spawner.port, identity: ME, maxBodyBytes: LIMIT })
  const { result } = await callTool(client, 'bot_list')
  t.equal(result.ok, true)
  t.equal(result.payloadJson, body)
})
