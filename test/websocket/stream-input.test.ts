// The input-streaming WebSocket against a real service, driven by the `ws`
// client with ElevenLabs' published message shapes, so that every message
// and both endpoints are covered (the client library of
// livekit-elevenlabs.test.ts speaks only multi-stream-input).

import t from 'tap'
import WebSocket from 'ws'
import { eventually } from '../helpers/hang-guard.js'
import { request, startTestService } from '../helpers/service.js'

const service = await startTestService({ TTS_WS_MAX_CONTEXTS: '2', TTS_WS_MAX_TEXT: '300', TTS_WS_TEXT_WAIT_MS: '200' })
t.teardown(async () => await service.stop())
const base = service.url.replace('http://', 'ws://')
const VOICE = 'en_US-probe-medium'
/** Noise off: the same text gives the same samples on every path. */
const QUIET = { noise_scale: 0, noise_w: 0 }

interface Exchange {
  messages: Array<Record<string, any>>
  closeCode: number
}

function open (path: string): Promise<WebSocket> {
  const ws = new WebSocket(`${base}${path}`)
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws))
    ws.once('unexpected-response', (_request, response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => { body += String(chunk) })
      response.on('end', () => reject(Object.assign(new Error(body), { status: response.statusCode, body: JSON.parse(body) })))
    })
    ws.once('error', reject)
  })
}

/** Sends each message in turn, then collects every reply until the server closes. */
async function exchange (path: string, messages: Array<Record<string, unknown>>): Promise<Exchange> {
  const ws = await open(path)
  const replies: Array<Record<string, any>> = []
  ws.on('message', data => replies.push(JSON.parse(String(data))))
  const closed = new Promise<number>(resolve => ws.once('close', code => resolve(code)))
  for (const message of messages) ws.send(JSON.stringify(message))
  return { messages: replies, closeCode: await closed }
}

function audioOf (messages: Array<Record<string, any>>, contextId?: string): Buffer {
  return Buffer.concat(messages.filter(m => typeof m.audio === 'string' && m.contextId === contextId).map(m => Buffer.from(m.audio, 'base64')))
}

t.test('stream-input: tokens in, a sentence\'s audio out as /tts gives it, isFinal, then the socket closes', async t => {
  const sentence = 'Hello there, how are you today?'
  const tokens = ['Hello', ' there,', ' how', ' are', ' you', ' today?', ' ']
  const { messages, closeCode } = await exchange(`/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_24000&model_id=eleven_flash_v2_5`, [
    { text: ' ', voice_settings: { stability: 0.5, similarity_boost: 0.8, ...QUIET }, generation_config: { chunk_length_schedule: [120, 160, 250, 290] } },
    ...tokens.map(text => ({ text })),
    { text: '' }
  ])
  t.equal(closeCode, 1000)
  const audio = messages.filter(m => typeof m.audio === 'string')
  t.ok(audio.length > 0, 'audio messages')
  for (const m of audio) {
    t.same(Object.keys(m).sort(), ['alignment', 'audio', 'isFinal', 'normalizedAlignment'])
    t.equal(m.isFinal, false)
  }
  t.same(messages.at(-1), { isFinal: true }, 'the last message is isFinal')
  const tts = await request(`${service.url}/tts`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text: sentence, voice: VOICE, format: 'pcm', ...QUIET }) })
  t.equal(tts.status, 200)
  t.same(audioOf(messages), tts.body, 'the same PCM as POST /tts format=pcm')
})

t.test('output formats: μ-law at 8 kHz is one byte a sample, pcm_16000 two, mp3 frames', async t => {
  const speak = async (format: string): Promise<Buffer> => audioOf((await exchange(`/v1/text-to-speech/${VOICE}/stream-input?output_format=${format}`, [
    { text: ' ', voice_settings: QUIET }, { text: 'Good morning. ' }, { text: '' }
  ])).messages)
  const pcm16 = await speak('pcm_16000')
  const ulaw = await speak('ulaw_8000')
  const mp3 = await speak('mp3_22050_32')
  t.equal(pcm16.length % 2, 0)
  // 8 kHz one byte a sample against 16 kHz two bytes: a quarter, within the resamplers' rounding.
  t.ok(Math.abs(ulaw.length * 4 - pcm16.length) <= 8, `μ-law ${ulaw.length} bytes, pcm_16000 ${pcm16.length}`)
  t.equal(mp3[0], 0xff, 'an MPEG frame sync')
  t.equal(mp3[1] & 0xe0, 0xe0)
})

t.test('multi-stream-input: contexts speak apart, each ends with its isFinal', async t => {
  const { messages, closeCode } = await exchange(`/v1/text-to-speech/${VOICE}/multi-stream-input?output_format=pcm_22050`, [
    { text: ' ', context_id: 'a', voice_settings: QUIET },
    { text: ' ', context_id: 'b', voice_settings: QUIET },
    { text: 'First one. ', context_id: 'a' },
    { text: 'Second one. ', context_id: 'b', flush: true },
    { text: '', context_id: 'a', flush: true },
    { close_socket: true }
  ])
  t.equal(closeCode, 1000)
  for (const id of ['a', 'b']) {
    t.ok(audioOf(messages, id).length > 0, `audio for ${id}`)
    const own = messages.filter(m => m.contextId === id)
    t.same(own.at(-1), { isFinal: true, contextId: id }, `${id} ends with isFinal`)
  }
})

t.test('a third context over TTS_WS_MAX_CONTEXTS is refused with a reason; close_context stops a context at once', async t => {
  const ws = await open(`/v1/text-to-speech/${VOICE}/multi-stream-input?output_format=pcm_16000`)
  const replies: Array<Record<string, any>> = []
  ws.on('message', data => replies.push(JSON.parse(String(data))))
  const long = 'This is a long sentence that keeps the voice busy for a while. '.repeat(4)
  ws.send(JSON.stringify({ text: long, context_id: 'a' }))
  ws.send(JSON.stringify({ text: 'Hi. ', context_id: 'b' }))
  ws.send(JSON.stringify({ text: 'Hi. ', context_id: 'c' }))
  await eventually('the refusal', () => replies.some(m => m.contextId === 'c'))
  const refusal = replies.find(m => m.contextId === 'c')
  t.equal(refusal?.code, 'ERR_WS_TOO_MANY_CONTEXTS')
  t.match(refusal?.error, /Too many open contexts on this socket: the limit is 2 \(TTS_WS_MAX_CONTEXTS\)/)
  await eventually('audio for a', () => replies.some(m => m.contextId === 'a' && typeof m.audio === 'string'))
  ws.send(JSON.stringify({ context_id: 'a', close_context: true }))
  await eventually('a closed', () => replies.some(m => m.contextId === 'a' && m.isFinal === true))
  const session = [...service.websockets.sessions][0]
  await eventually('a gone', () => session.contextCount <= 1)
  const afterClose = replies.length
  const finalIndex = replies.findIndex(m => m.contextId === 'a' && m.isFinal === true)
  t.notOk(replies.slice(finalIndex + 1).some(m => m.contextId === 'a'), 'nothing for a after its isFinal')
  t.ok(afterClose >= finalIndex)
  ws.close()
  await eventually('the process counts released', () => service.websockets.limits.contexts === 0 && service.websockets.limits.text === 0)
})

t.test('text beyond TTS_WS_MAX_TEXT is refused and dropped; the context goes on', async t => {
  const { messages } = await exchange(`/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_16000`, [
    { text: ' ' },
    { text: 'x'.repeat(400) },
    { text: 'Still here. ' },
    { text: '' }
  ])
  const refusal = messages.find(m => m.code === 'ERR_WS_TEXT_LIMIT')
  t.match(refusal?.error, /^Expected at most 300 characters of text waiting to be spoken on this socket \(TTS_WS_MAX_TEXT\) but received 400/)
  t.ok(audioOf(messages).length > 0, 'the later text is spoken')
  t.same(messages.at(-1), { isFinal: true })
})

t.test('a message that is not the protocol\'s is refused, naming the field, and the socket closes 1008', async t => {
  const { messages, closeCode } = await exchange(`/v1/text-to-speech/${VOICE}/stream-input`, [{ text: 5 }])
  t.equal(closeCode, 1008)
  t.same(messages, [{ error: 'Expected a string for text but received 5 (number)', code: 'ERR_INVALID_ARGUMENT' }])
  const schedule = await exchange(`/v1/text-to-speech/${VOICE}/stream-input`, [{ text: ' ', generation_config: { chunk_length_schedule: [10] } }])
  t.match(schedule.messages[0].error, /^Expected 1 to 16 integers from 50 to 500 for generation_config.chunk_length_schedule but received \[10\]/)
})

t.test('bad voice_settings in the first message are refused at once, naming the field', async t => {
  const { messages, closeCode } = await exchange(`/v1/text-to-speech/${VOICE}/stream-input`, [{ text: ' ', voice_settings: { length_scale: 'slow' } }])
  t.equal(closeCode, 1008)
  t.same(messages, [{ error: 'Expected a number for voice_settings.length_scale but received "slow" (string)', code: 'ERR_INVALID_ARGUMENT' }])
  const multi = await exchange(`/v1/text-to-speech/${VOICE}/multi-stream-input`, [{ text: ' ', context_id: 'a', voice_settings: { speed: 0 } }, { close_socket: true }])
  t.same(multi.messages, [{ error: 'Expected a number above 0 for voice_settings.speed but received 0 (number)', code: 'ERR_INVALID_ARGUMENT', contextId: 'a' }])
  t.equal(multi.closeCode, 1000, 'multi-stream-input goes on without the context')
})

t.test('bad upgrades get an HTTP answer with the reason', async t => {
  const refused = async (path: string): Promise<unknown> => await open(path).then(ws => { ws.close(); return 'accepted' }, (error: Error & { status: number, body: unknown }) => ({ status: error.status, body: error.body }))
  t.match(await refused(`/v1/text-to-speech/${VOICE}/stream-input?output_format=aac_44100`), { status: 400, body: { code: 'ERR_INVALID_ARGUMENT', error: /for output_format but received "aac_44100"/ } })
  t.match(await refused(`/v1/text-to-speech/${VOICE}/stream-input?inactivity_timeout=999`), { status: 400, body: { error: /^Expected an integer from 1 to 180 \(seconds\) for inactivity_timeout/ } })
  t.match(await refused('/v1/text-to-speech/nobody/stream-input'), { status: 400, body: { code: 'ERR_VOICE_NOT_FOUND' } })
  t.match(await refused('/v1/text-to-speech/x/other'), { status: 404, body: { code: 'ERR_NOT_FOUND' } })
})

t.test('a mapped voice id speaks with its voice', async t => {
  const { messages } = await exchange('/v1/text-to-speech/alloy/stream-input?output_format=pcm_16000', [{ text: ' ' }, { text: 'Hi. ' }, { text: '' }])
  t.ok(audioOf(messages).length > 0)
})

t.test('text without a sentence end is spoken after TTS_WS_TEXT_WAIT_MS without more text, cut at its last word boundary', async t => {
  // How soon after the wait is test/leak/service-timing.leak.ts's: here, what is spoken and in which order.
  const ws = await open(`/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_24000`)
  const replies: Array<Record<string, any>> = []
  ws.on('message', data => replies.push(JSON.parse(String(data))))
  const closed = new Promise<number>(resolve => ws.once('close', code => resolve(code)))
  ws.send(JSON.stringify({ text: ' ', voice_settings: QUIET }))
  ws.send(JSON.stringify({ text: 'no sentence end here' }))
  await eventually('audio with no flush and no more text', () => replies.some(m => typeof m.audio === 'string'))
  // "here" may still grow ("hereafter"): it waits for more text.
  ws.send(JSON.stringify({ text: ' and there.' }))
  ws.send(JSON.stringify({ text: '' }))
  t.equal(await closed, 1000)
  const pcm = async (text: string): Promise<Buffer> => (await request(`${service.url}/tts`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text, voice: VOICE, format: 'pcm', ...QUIET }) })).body
  t.ok(audioOf(replies).equals(Buffer.concat([await pcm('no sentence end'), await pcm('here and there.')])), 'spoken as "no sentence end", then "here and there."')
  t.same(replies.at(-1), { isFinal: true })
})

t.test('inactivity_timeout closes a silent socket with a reason', async t => {
  const { messages, closeCode } = await exchange(`/v1/text-to-speech/${VOICE}/stream-input?inactivity_timeout=1`, [{ text: ' ' }])
  t.equal(closeCode, 1008)
  t.same(messages, [{ error: 'No message for 1 s (inactivity_timeout): the socket is closed', code: 'ERR_WS_INACTIVE' }])
})

t.test('inactivity_timeout does not close a socket the server still owes audio: a quiet client waiting for a busy server keeps its speech', async t => {
  // Every inference slot held: the text is accepted and waits far past the 1 s timeout.
  const gate = service.deps.pools.gate
  const slots = await Promise.all(Array.from({ length: gate.limit }, async () => await gate.acquire()))
  const ws = await open(`/v1/text-to-speech/${VOICE}/stream-input?inactivity_timeout=1&output_format=pcm_16000`)
  const replies: Array<Record<string, any>> = []
  ws.on('message', data => replies.push(JSON.parse(String(data))))
  const closed = new Promise<number>(resolve => ws.once('close', code => resolve(code)))
  for (const message of [{ text: ' ', voice_settings: QUIET }, { text: 'Wait for me. ' }, { text: '' }]) ws.send(JSON.stringify(message))
  await eventually('the sentence waits for a slot', () => gate.waiting > 0)
  // Three timeouts pass with nothing sent either way (the socket logs each).
  const kept = (): number => service.logs.filter(line => line.msg === 'inactivity_timeout passed while audio is owed: kept open').length
  await eventually('three inactivity timeouts to pass', () => kept() >= 3)
  t.equal(ws.readyState, WebSocket.OPEN, 'still open while its audio is owed')
  t.same(replies, [], 'nothing sent yet')
  for (const release of slots) release()
  t.equal(await closed, 1000, 'closed normally once it was all sent')
  t.ok(audioOf(replies).length > 0, 'its audio arrived')
  t.same(replies.filter(m => m.error !== undefined), [], 'no error')
  t.match(replies.at(-1), { isFinal: true })
})

t.test('a page from another origin is refused before the upgrade, as on HTTP', async t => {
  const refusal = await new Promise<{ status: number, body: Record<string, unknown> }>((resolve, reject) => {
    const ws = new WebSocket(`${base}/v1/text-to-speech/${VOICE}/stream-input`, { origin: 'http://evil.example' })
    ws.once('unexpected-response', (_request, response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => { body += String(chunk) })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(body) }))
    })
    ws.once('open', () => reject(new Error('opened from a foreign page')))
  })
  t.equal(refusal.status, 403)
  t.match(refusal.body, { code: 'ERR_ORIGIN_NOT_ALLOWED', origin: 'http://evil.example' })
})
