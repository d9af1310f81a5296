// The drain (close(), what SIGTERM runs): /ready answers 503 and the port
// closes at once; an answer in flight and a WebSocket's flushed text are
// still delivered whole, then the socket closes with 1001; past the grace
// period what is left is cut. Every answer names the replica. The test
// holds the service's one inference slot and the drain's timer, so what
// happens when is decided by the test, not by how fast the machine is.

import { connect, type Socket } from 'node:net'
import t from 'tap'
import WebSocket from 'ws'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, startTestService, type TestService } from '../helpers/service.js'
import { INACTIVITY } from '../../src/websocket/messages.js'
import type { DrainTimer } from '../../src/service/server.js'

const VOICE = 'en_US-probe-medium'
const REPLICA = 'tts-test-7'

interface HeldTimer {
  timer: DrainTimer
  /** The grace period it was armed with; undefined until armed. */
  armedMs: number | undefined
  cancelled: boolean
  expire: () => void
}

function heldTimer (): HeldTimer {
  const held: HeldTimer = {
    armedMs: undefined,
    cancelled: false,
    expire: () => { throw new Error('the drain timer was never armed') },
    timer: (ms, expire) => {
      held.armedMs = ms
      held.expire = expire
      return () => { held.cancelled = true }
    }
  }
  return held
}

async function start (held: HeldTimer): Promise<TestService> {
  return await startTestService({ TTS_MAX_CONCURRENT_INFERENCES: '1', TTS_DRAIN_GRACE_SECONDS: '42', TTS_REPLICA_NAME: REPLICA }, [VOICE], { drainTimer: held.timer })
}

interface OpenSocket {
  ws: WebSocket
  upgradeHeaders: Record<string, string | string[] | undefined>
  replies: Array<Record<string, any>>
  /** Every event in order: 'audio <id>', 'final <id>', 'close <code>'. */
  events: string[]
  closed: Promise<{ code: number, reason: string }>
  send: (message: Record<string, unknown>) => void
}

async function openMulti (service: TestService): Promise<OpenSocket> {
  const ws = new WebSocket(`${service.url.replace('http://', 'ws://')}/v1/text-to-speech/${VOICE}/multi-stream-input?output_format=pcm_24000&inactivity_timeout=${INACTIVITY.max}`)
  let upgradeHeaders: OpenSocket['upgradeHeaders'] = {}
  ws.once('upgrade', response => { upgradeHeaders = response.headers })
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  const replies: Array<Record<string, any>> = []
  const events: string[] = []
  ws.on('message', data => {
    const message = JSON.parse(String(data))
    replies.push(message)
    if (typeof message.audio === 'string' && message.audio !== '') events.push(`audio ${String(message.contextId)}`)
    if (message.isFinal === true) events.push(`final ${String(message.contextId)}`)
  })
  const closed = new Promise<{ code: number, reason: string }>(resolve => ws.once('close', (code, reason) => {
    events.push(`close ${code}`)
    resolve({ code, reason: String(reason) })
  }))
  return { ws, upgradeHeaders, replies, events, closed, send: message => ws.send(JSON.stringify(message)) }
}

/** A connection with a request begun (its first header line sent): the
 * server counts it busy, so the drain keeps it; `finish` sends the rest and
 * reads the answer whole. */
async function begunRequest (service: TestService, path: string): Promise<{ finish: () => Promise<string>, closed: Promise<string> }> {
  const socket: Socket = connect(new URL(service.url).port as unknown as number, '127.0.0.1')
  await new Promise((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
  socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n`)
  const chunks: Buffer[] = []
  socket.on('data', chunk => chunks.push(chunk))
  const ended = new Promise<void>(resolve => socket.once('close', () => resolve()))
  return {
    closed: ended.then(() => Buffer.concat(chunks).toString()),
    finish: async () => {
      socket.write('Connection: keep-alive\r\n\r\n')
      await ended
      return Buffer.concat(chunks).toString()
    }
  }
}

async function refused (service: TestService): Promise<string> {
  return await new Promise(resolve => {
    const socket = connect(Number(new URL(service.url).port), '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve('connected') })
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'))
  })
}

t.test('a WebSocket speaks what it flushed, then closes with 1001; /ready answers 503 meanwhile; the port is closed', async t => {
  const held = heldTimer()
  const service = await start(held)
  const socket = await openMulti(service)
  t.equal(socket.upgradeHeaders['x-chorus-replica'], REPLICA, 'the 101 names the replica')
  const ready = await begunRequest(service, '/ready')
  const slot = await service.deps.pools.gate.acquire()
  socket.send({ text: ' ', context_id: 'a' })
  socket.send({ text: 'This sentence was flushed before the drain. ', context_id: 'a', flush: true })
  socket.send({ text: ' ', context_id: 'b' })
  socket.send({ text: 'This one was never flushed ', context_id: 'b' })
  const session = [...service.websockets.sessions][0]
  await eventually('both contexts are open', () => session?.contextCount === 2)

  const stopped = service.close()
  await service.logged('the drain began', line => line.msg === 'draining: finishing answers and WebSocket contexts in flight')
  t.equal(held.armedMs, 42_000, 'the grace period is TTS_DRAIN_GRACE_SECONDS')
  const readyAnswer = await ready.finish()
  t.match(readyAnswer, /^HTTP\/1\.1 503 /, '/ready answers 503 on a connection begun before the drain')
  t.match(readyAnswer, /\r\nConnection: close\r\n/i, 'and closes its connection')
  t.match(readyAnswer, /\r\nX-Chorus-Replica: tts-test-7\r\n/i)
  t.match(readyAnswer, /"code":"ERR_NOT_READY"/)
  t.match(readyAnswer, /"draining":true/)
  t.equal(await refused(service), 'ECONNREFUSED', 'no new connection is accepted')
  t.notOk(socket.events.some(event => event.startsWith('close')), 'the socket stays open while flushed text waits')
  t.notOk(socket.events.includes('audio a'), 'nothing spoken yet: the test holds the slot')

  slot()
  const closed = await socket.closed
  await stopped
  t.equal(closed.code, 1001, 'closed with 1001 (going away)')
  t.ok(socket.events.includes('audio a'), 'the flushed text was spoken')
  t.notOk(socket.events.includes('audio b'), 'the unflushed text was not')
  t.ok(socket.events.indexOf('final a') > socket.events.lastIndexOf('audio a'), 'a\'s isFinal after its audio')
  t.equal(socket.events.at(-1), 'close 1001', 'the close comes last')
  t.notOk(socket.replies.some(reply => reply.error !== undefined), 'no error message')
  t.equal(held.cancelled, true, 'the grace timer was cancelled: everything finished within it')
  const order = service.logs.map(line => line.msg).filter(msg => ['draining: finishing answers and WebSocket contexts in flight', 'drained', 'stopped'].includes(String(msg)))
  t.same(order, ['draining: finishing answers and WebSocket contexts in flight', 'drained', 'stopped'])
  await service.stop()
})

t.test('an HTTP answer in flight is delivered whole, with Connection: close and the replica\'s name', async t => {
  const held = heldTimer()
  const service = await start(held)
  const slot = await service.deps.pools.gate.acquire()
  const answer = postTts(service.url, { text: 'An answer that was in flight when the drain began.', voice: VOICE })
  await eventually('the request is pending', () => service.deps.speech.pending === 1)
  const stopped = service.close()
  await service.logged('the drain began', line => line.msg === 'draining: finishing answers and WebSocket contexts in flight')
  t.equal(await refused(service), 'ECONNREFUSED')
  slot()
  const reply = await answer
  await stopped
  t.equal(reply.status, 200)
  t.equal(reply.headers.get('content-type'), 'audio/wav')
  t.equal(reply.headers.get('x-chorus-replica'), REPLICA)
  t.equal(reply.body.readUInt32LE(40) + 44, reply.body.length, 'the WAV is whole: its data size matches what arrived')
  t.ok(reply.body.length > 44, 'and holds audio')
  t.equal(reply.headers.get('connection'), 'close', 'begun before the drain, its connection closes once it is sent')
  t.equal(held.cancelled, true)
  await service.stop()
})

t.test('past the grace period, what is left is cut and the drain ends', async t => {
  const held = heldTimer()
  const service = await start(held)
  // A request that never completes its headers: the server keeps waiting for it.
  const stuck = await begunRequest(service, '/health')
  const stopped = service.close()
  await service.logged('the drain began', line => line.msg === 'draining: finishing answers and WebSocket contexts in flight')
  let settled = false
  void stopped.then(() => { settled = true })
  await new Promise(resolve => setImmediate(resolve))
  t.equal(settled, false, 'the drain waits for the connection')
  t.notOk(service.logs.some(line => line.msg === 'drained'))
  held.expire()
  await stopped
  t.equal(await stuck.closed, '', 'its connection was closed, without an answer')
  t.same(service.logs.map(line => line.msg).filter(msg => ['drain grace period over: ending what is left', 'drained', 'stopped'].includes(String(msg))),
    ['drain grace period over: ending what is left', 'drained', 'stopped'])
  t.equal(held.cancelled, true, 'the timer is cancelled once the drain is over')
  await service.stop()
})

t.test('every answer names the replica: routes, refusals and a refused upgrade', async t => {
  const service = await start(heldTimer())
  for (const path of ['/health', '/ready', '/no-such-route']) {
    const response = await fetch(service.url + path)
    await response.arrayBuffer()
    t.equal(response.headers.get('x-chorus-replica'), REPLICA, path)
  }
  const refusal = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const ws = new WebSocket(`${service.url.replace('http://', 'ws://')}/v1/text-to-speech/no-such-voice/stream-input`)
    ws.once('unexpected-response', (_request, response) => { response.resume(); resolve({ status: response.statusCode, replica: response.headers['x-chorus-replica'] }) })
    ws.once('open', () => reject(new Error('an unknown voice was accepted')))
  })
  t.same(refusal, { status: 400, replica: REPLICA }, 'an unknown voice is refused, by this replica')
  await service.stop()
})
