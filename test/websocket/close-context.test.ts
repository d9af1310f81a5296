// close_context and close_socket as ElevenLabs' reference has them: text
// flushed before the close is still spoken whole, then isFinal; text after
// the last flush is dropped; with nothing flushed the close is barge-in and
// isFinal comes at once. The test holds the service's one inference slot
// while it sends, so what runs when is decided by the messages, not by
// how fast the machine is.

import t from 'tap'
import WebSocket from 'ws'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, startTestService } from '../helpers/service.js'
import { INACTIVITY } from '../../src/websocket/messages.js'
import type { SocketSession } from '../../src/websocket/session.js'

const service = await startTestService({ TTS_MAX_CONCURRENT_INFERENCES: '1', TTS_WS_MAX_CONTEXTS: '2' })
t.teardown(async () => await service.stop())
const VOICE = 'en_US-probe-medium'
/** Noise off: the same text gives the same samples on every path. */
const QUIET = { noise_scale: 0, noise_w: 0 }
const gate = service.deps.pools.gate

interface Socket {
  ws: WebSocket
  replies: Array<Record<string, any>>
  closed: Promise<number>
  send: (message: Record<string, unknown>) => void
}

/** The longest inactivity_timeout: a socket waits silently while the test holds the slot. */
async function openMulti (): Promise<Socket> {
  const ws = new WebSocket(`${service.url.replace('http://', 'ws://')}/v1/text-to-speech/${VOICE}/multi-stream-input?output_format=pcm_24000&inactivity_timeout=${INACTIVITY.max}`)
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  const replies: Array<Record<string, any>> = []
  ws.on('message', data => replies.push(JSON.parse(String(data))))
  const closed = new Promise<number>(resolve => ws.once('close', code => resolve(code)))
  return { ws, replies, closed, send: message => ws.send(JSON.stringify(message)) }
}

/** The server-side session of the socket opened last. */
function lastSession (): SocketSession {
  const session = [...service.websockets.sessions].at(-1)
  if (session === undefined) throw new Error('No socket is open')
  return session
}

function audioOf (replies: Array<Record<string, any>>, contextId: string): Buffer {
  return Buffer.concat(replies.filter(m => m.contextId === contextId && typeof m.audio === 'string').map(m => Buffer.from(m.audio, 'base64')))
}

async function ttsPcm (...sentences: string[]): Promise<Buffer> {
  const parts: Buffer[] = []
  for (const text of sentences) {
    const reply = await postTts(service.url, { text, voice: VOICE, format: 'pcm', ...QUIET })
    if (reply.status !== 200) throw new Error(`POST /tts answered ${reply.status}`)
    parts.push(reply.body)
  }
  return Buffer.concat(parts)
}

const finalOf = (replies: Array<Record<string, any>>, id: string): number => replies.findIndex(m => m.contextId === id && m.isFinal === true)

t.test('close_context after a flush: the flushed text is heard whole, then isFinal; text after the flush is dropped', async t => {
  const socket = await openMulti()
  const slot = await gate.acquire()
  socket.send({ text: ' ', context_id: 'a', voice_settings: QUIET })
  socket.send({ text: 'The first sentence is here. The second one follows. ', context_id: 'a', flush: true })
  socket.send({ text: 'This one is never heard. ', context_id: 'a' })
  socket.send({ context_id: 'a', close_context: true })
  const session = lastSession()
  await eventually('the close is processed', () => session.closingCount === 1)
  t.equal(finalOf(socket.replies, 'a'), -1, 'no isFinal while flushed text is still to be spoken')
  slot()
  await eventually('a\'s isFinal', () => finalOf(socket.replies, 'a') >= 0)
  t.equal(finalOf(socket.replies, 'a'), socket.replies.length - 1, 'isFinal is a\'s last message')
  t.notOk(socket.replies.some(m => m.error !== undefined), 'no error')
  // The message held both sentences: one piece, one request, as POST /tts would take it.
  t.same(audioOf(socket.replies, 'a'), await ttsPcm('The first sentence is here. The second one follows.'),
    'the flushed sentences, sample for sample as POST /tts gives them, and nothing of the unflushed one')
  await eventually('the context is gone', () => session.contextCount === 0)
  socket.ws.close()
  await socket.closed
  await eventually('every character released', () => service.websockets.limits.text === 0 && service.websockets.limits.contexts === 0)
})

t.test('close_context with nothing flushed is barge-in: held and queued text dropped, isFinal at once', async t => {
  const socket = await openMulti()
  const slot = await gate.acquire()
  const granted = gate.granted
  socket.send({ text: ' ', context_id: 'a', voice_settings: QUIET })
  socket.send({ text: 'One sentence is queued. Another one waits. And a word', context_id: 'a' })
  socket.send({ context_id: 'a', close_context: true })
  // The slot is still held: the isFinal cannot wait for any inference.
  await eventually('a\'s isFinal', () => finalOf(socket.replies, 'a') >= 0)
  t.same(socket.replies, [{ isFinal: true, contextId: 'a' }], 'no audio, only isFinal')
  const session = lastSession()
  t.equal(session.contextCount, 0, 'the context is gone')
  t.equal(service.websockets.limits.text, 0, 'its text is released')
  t.equal(gate.waiting, 0, 'none of its sentences waits for a slot')
  slot()
  socket.send({ text: ' ', context_id: 'b', voice_settings: QUIET })
  socket.send({ text: 'Still here. ', context_id: 'b', flush: true })
  socket.send({ close_socket: true })
  t.equal(await socket.closed, 1000)
  t.equal(gate.granted - granted, 1, 'one inference ran after the barge-in: b\'s sentence, none of a\'s')
  t.same(audioOf(socket.replies, 'b'), await ttsPcm('Still here.'))
  t.notOk(socket.replies.slice(1).some(m => m.contextId === 'a'), 'nothing for a after its isFinal')
})

t.test('close_socket: each context speaks what it flushed and sends its isFinal, unflushed text is dropped, then the socket closes', async t => {
  const socket = await openMulti()
  const slot = await gate.acquire()
  socket.send({ text: ' ', context_id: 'a', voice_settings: QUIET })
  socket.send({ text: ' ', context_id: 'b', voice_settings: QUIET })
  socket.send({ text: 'Hello there. ', context_id: 'a', flush: true })
  socket.send({ text: 'Not flushed and not ended', context_id: 'b' })
  socket.send({ close_socket: true })
  socket.send({ text: 'After close_socket. ', context_id: 'c', flush: true })
  const session = lastSession()
  await eventually('b ends at once', () => finalOf(socket.replies, 'b') >= 0)
  t.equal(session.closingCount, 1, 'a still speaks')
  slot()
  t.equal(await socket.closed, 1000)
  t.same(socket.replies.filter(m => m.contextId === 'b'), [{ isFinal: true, contextId: 'b' }])
  t.same(audioOf(socket.replies, 'a'), await ttsPcm('Hello there.'))
  t.same(socket.replies.at(-1), { isFinal: true, contextId: 'a' })
  t.notOk(socket.replies.some(m => m.contextId === 'c'), 'a message after close_socket is ignored')
})

t.test('a closed context\'s id may open a new context while the old one speaks; the closing one still counts against TTS_WS_MAX_CONTEXTS', async t => {
  const socket = await openMulti()
  const slot = await gate.acquire()
  socket.send({ text: ' ', context_id: 'a', voice_settings: QUIET })
  socket.send({ text: 'The first reply. ', context_id: 'a', flush: true })
  socket.send({ context_id: 'a', close_context: true })
  socket.send({ text: 'The second reply. ', context_id: 'a', flush: true })
  socket.send({ text: 'Refused. ', context_id: 'b' })
  const session = lastSession()
  await eventually('the refusal', () => socket.replies.some(m => m.contextId === 'b'))
  t.match(socket.replies.find(m => m.contextId === 'b'), { code: 'ERR_WS_TOO_MANY_CONTEXTS' })
  t.equal(session.contextCount, 2, 'the closing a and the new a')
  slot()
  socket.send({ context_id: 'a', close_context: true })
  await eventually('two isFinals for a', () => socket.replies.filter(m => m.contextId === 'a' && m.isFinal === true).length === 2)
  const audio = audioOf(socket.replies, 'a')
  const [first, second] = [await ttsPcm('The first reply.'), await ttsPcm('The second reply.')]
  t.equal(audio.length, first.length + second.length, 'both replies are spoken whole')
  socket.ws.close()
  await socket.closed
})
