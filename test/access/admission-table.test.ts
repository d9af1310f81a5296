// Every door checks the same way (issue 42). The table below classifies
// every route the service registers (read from its router) and every path
// the WebSocket upgrade takes; a route missing from the table, or a row for
// a route that is gone, fails the first test. Each speech route and framing
// then shows, for a key of its own: its speech admitted and its audio
// counted against the key, exactly; its work granted inference slots in the
// key's share and no one else's; and its next speech refused with 429
// (exact: the quotas' clock is held still, so no minute slides). The other
// classes show what they are: public paths need no key, keyed paths and
// /metrics do, admin paths refuse a user key.

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import WebSocket from 'ws'
import { eventually } from '../helpers/hang-guard.js'
import { HANG_GUARD_MS, request, startTestService, type Reply } from '../helpers/service.js'

const VOICE = 'en_US-probe-medium'
const RATE = 22_050
const TEXT = 'Hello there. How are you?'
/** A socket's text is admitted piece by piece; one sentence is one piece, one speech. */
const SENTENCE = 'Hello there.'
const WAV_HEADER = 44

type Framing = (key: string) => Promise<{ status: number, seconds: number, body: unknown }>
// lookup: keyed, and with a key it passes admission (an unknown id is then the route's 404).
type Door = { kind: 'public' | 'keyed' | 'lookup' | 'metrics' | 'admin' } | { kind: 'speech', framings: Record<string, Framing> }

const keyOf = (name: string): string => `sk-${name}-0123456789abcdef`
const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` })

/** Seconds of 16-bit mono audio at the voice's rate in a WAV file, whole or streamed (open-ended header). */
const wavSeconds = (bytes: Buffer): number => (bytes.length - WAV_HEADER) / 2 / RATE

async function post (path: string, key: string, body: unknown): Promise<Reply> {
  return await request(`${service.url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...bearer(key) } })
}

/** The audio of Server-Sent Events: each delta's base64, in order. */
function sseAudio (text: string): Buffer {
  const deltas = text.split('\n\n').filter(event => event.startsWith('data: ')).map(event => JSON.parse(event.slice(6)) as { audio?: string })
  return Buffer.concat(deltas.filter(event => event.audio !== undefined).map(event => Buffer.from(event.audio as string, 'base64')))
}

function httpFraming (path: string, body: Record<string, unknown>, audio: (reply: Reply) => Buffer): Framing {
  return async key => {
    const reply = await post(path, key, body)
    return { status: reply.status, seconds: reply.status === 200 ? wavSeconds(audio(reply)) : 0, body: reply.json }
  }
}

const whole = (reply: Reply): Buffer => reply.body
const sse = (reply: Reply): Buffer => sseAudio(reply.body.toString())
const timed = (reply: Reply): Buffer => Buffer.from(reply.json.audio as string, 'base64')

function ttsFramings (path: string): Record<string, Framing> {
  return {
    'whole WAV': httpFraming(path, { text: TEXT, voice: VOICE }, whole),
    'streamed WAV (?stream=1)': httpFraming(`${path}?stream=1`, { text: TEXT, voice: VOICE }, whole),
    'SSE with timing': httpFraming(path, { text: TEXT, voice: VOICE, stream: true, timestamps: ['word'] }, sse),
    'timed JSON': httpFraming(path, { text: TEXT, voice: VOICE, timestamps: ['word'] }, timed)
  }
}

const OPENAI = { model: 'tts-1', input: TEXT, voice: VOICE, response_format: 'wav' }

/** The socket's speech: every audio message's PCM (pcm_22050), and the first error message, if any. */
async function socketSpeech (path: string, key: string, messages: Array<Record<string, unknown>>): Promise<{ status: number, seconds: number, body: unknown }> {
  const ws = new WebSocket(`${service.url.replace('http://', 'ws://')}${path}?output_format=pcm_22050`, { headers: { 'xi-api-key': key } })
  const refused = new Promise<{ status: number, seconds: number, body: unknown }>(resolve => {
    ws.once('unexpected-response', (_request, response) => {
      let text = ''
      response.on('data', (chunk: Buffer) => { text += String(chunk) })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, seconds: 0, body: JSON.parse(text) }))
    })
  })
  const spoke = new Promise<{ status: number, seconds: number, body: unknown }>((resolve, reject) => {
    const audio: Buffer[] = []
    let error: Record<string, unknown> | undefined
    ws.on('message', data => {
      const message = JSON.parse(String(data)) as Record<string, unknown>
      if (typeof message.audio === 'string') audio.push(Buffer.from(message.audio, 'base64'))
      if (message.error !== undefined) error ??= message
    })
    ws.once('open', () => { for (const message of messages) ws.send(JSON.stringify(message)) })
    ws.once('close', () => {
      const bytes = Buffer.concat(audio)
      // A refused speech is a message on the open socket: its code, and 429 as the HTTP routes answer.
      resolve(error === undefined ? { status: 200, seconds: bytes.length / 2 / RATE, body: undefined } : { status: error.code === 'ERR_QUOTA_EXCEEDED' ? 429 : 500, seconds: 0, body: error })
    })
    ws.once('error', reject)
  })
  return await Promise.race([refused, spoke])
}

/** ElevenLabs' HTTP routes at the voice's own rate: raw PCM, no header. */
const pcmSeconds = (bytes: Buffer): number => bytes.length / 2 / RATE
const ELEVEN = { text: TEXT }
const timedLinesAudio = (body: Buffer): Buffer => Buffer.concat(body.toString().split('\n').filter(line => line !== '').map(line => Buffer.from((JSON.parse(line) as { audio_base64: string }).audio_base64, 'base64')))
/** Read raw: the timed lines are JSON line by line, not one document. */
function elevenFraming (path: string, audio: (body: Buffer) => Buffer): Framing {
  return async key => {
    const reply = await fetch(`${service.url}${path.replace(':voice_id', VOICE)}?output_format=pcm_22050`, { method: 'POST', body: JSON.stringify(ELEVEN), headers: { 'Content-Type': 'application/json', ...bearer(key) }, signal: AbortSignal.timeout(HANG_GUARD_MS) })
    const body = Buffer.from(await reply.arrayBuffer())
    return { status: reply.status, seconds: reply.status === 200 ? pcmSeconds(audio(body)) : 0, body: reply.status === 200 ? undefined : JSON.parse(body.toString()) }
  }
}

/** A socket of another protocol: its audio (raw PCM at the voice's rate) until `done` says the speech ended, and its refusal, if any. */
async function otherSocket (url: string, headers: Record<string, string>, messages: Array<Record<string, unknown>>,
  read: (data: Buffer, isBinary: boolean) => { audio?: Buffer, done?: boolean, error?: Record<string, unknown> }): Promise<{ status: number, seconds: number, body: unknown }> {
  const ws = new WebSocket(url, { headers })
  return await new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_request, response) => {
      let text = ''
      response.on('data', (chunk: Buffer) => { text += String(chunk) })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, seconds: 0, body: JSON.parse(text) }))
    })
    const audio: Buffer[] = []
    ws.on('message', (data: Buffer, isBinary) => {
      const got = read(data, isBinary)
      if (got.audio !== undefined) audio.push(got.audio)
      if (got.error !== undefined) resolve({ status: got.error.code === 'ERR_QUOTA_EXCEEDED' ? 429 : 500, seconds: 0, body: got.error })
      if (got.error !== undefined || got.done === true) ws.close()
      if (got.done === true) resolve({ status: 200, seconds: Buffer.concat(audio).length / 2 / RATE, body: undefined })
    })
    ws.once('open', () => { for (const message of messages) ws.send(JSON.stringify(message)) })
    ws.once('error', reject)
  })
}

const wsBase = (): string => service.url.replace('http://', 'ws://')
const cartesiaSpeech: Framing = async key => await otherSocket(`${wsBase()}/tts/websocket?api_key=${key}&cartesia_version=2024-06-10`, {},
  [{ context_id: 'a', model_id: 'sonic', voice: { mode: 'id', id: VOICE }, output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: RATE }, transcript: SENTENCE }],
  data => {
    const message = JSON.parse(String(data)) as Record<string, unknown>
    if (message.type === 'error') return { error: message }
    return { ...(message.type === 'chunk' ? { audio: Buffer.from(message.data as string, 'base64') } : {}), done: message.type === 'done' }
  })
const deepgramSpeech: Framing = async key => await otherSocket(`${wsBase()}/v1/speak?model=${VOICE}&encoding=linear16&sample_rate=${RATE}`, { Authorization: `Token ${key}` },
  [{ type: 'Speak', text: SENTENCE }, { type: 'Flush' }],
  (data, isBinary) => {
    if (isBinary) return { audio: data }
    const message = JSON.parse(String(data)) as Record<string, unknown>
    // Deepgram's refusal is a Warning: its description is the house error.
    if (message.type === 'Warning') return { error: { code: message.code, error: message.description } }
    return { done: message.type === 'Flushed' }
  })

const STREAM_INPUT = '/v1/text-to-speech/:voice_id/stream-input'
const MULTI_STREAM_INPUT = '/v1/text-to-speech/:voice_id/multi-stream-input'
const socketPath = (route: string): string => route.replace(':voice_id', VOICE)

const TABLE: Record<string, Door> = {
  'GET /health': { kind: 'public' },
  'GET /ready': { kind: 'public' },
  'GET /': { kind: 'public' },
  'GET /playground.js': { kind: 'public' },
  'GET /playground.css': { kind: 'public' },
  'GET /voices': { kind: 'keyed' },
  'GET /v1/models': { kind: 'keyed' },
  'GET /v1/audio/voices': { kind: 'keyed' },
  'GET /openapi.json': { kind: 'keyed' },
  'GET /v1/voices': { kind: 'keyed' },
  'GET /v1/heard/:id': { kind: 'lookup' },
  'GET /metrics': { kind: 'metrics' },
  'GET /admin/voices': { kind: 'admin' },
  'POST /admin/voices/:name': { kind: 'admin' },
  'DELETE /admin/voices/:name': { kind: 'admin' },
  'GET /admin/lexicons': { kind: 'admin' },
  'POST /admin/lexicons/:id': { kind: 'admin' },
  'GET /admin/lexicons/:id': { kind: 'admin' },
  'GET /admin/lexicons/:id/:version': { kind: 'admin' },
  'DELETE /admin/lexicons/:id': { kind: 'admin' },
  'DELETE /admin/lexicons/:id/:version': { kind: 'admin' },
  'POST /tts': { kind: 'speech', framings: ttsFramings('/tts') },
  'POST /v1/tts': { kind: 'speech', framings: ttsFramings('/v1/tts') },
  'POST /v1/audio/speech': {
    kind: 'speech',
    framings: {
      'streamed WAV': httpFraming('/v1/audio/speech', OPENAI, whole),
      SSE: httpFraming('/v1/audio/speech', { ...OPENAI, stream_format: 'sse' }, sse),
      'timed JSON': httpFraming('/v1/audio/speech', { ...OPENAI, timestamps: ['word'] }, timed)
    }
  },
  'POST /v1/text-to-speech/:voice_id': { kind: 'speech', framings: { audio: elevenFraming('/v1/text-to-speech/:voice_id', body => body) } },
  'POST /v1/text-to-speech/:voice_id/stream': { kind: 'speech', framings: { audio: elevenFraming('/v1/text-to-speech/:voice_id/stream', body => body) } },
  'POST /v1/text-to-speech/:voice_id/with-timestamps': {
    kind: 'speech',
    framings: { 'timed JSON': elevenFraming('/v1/text-to-speech/:voice_id/with-timestamps', body => Buffer.from((JSON.parse(body.toString()) as { audio_base64: string }).audio_base64, 'base64')) }
  },
  'POST /v1/text-to-speech/:voice_id/stream/with-timestamps': {
    kind: 'speech',
    framings: { 'timed lines': elevenFraming('/v1/text-to-speech/:voice_id/stream/with-timestamps', timedLinesAudio) }
  },
  'WS /tts/websocket': { kind: 'speech', framings: { 'a context': cartesiaSpeech } },
  'WS /v1/speak': { kind: 'speech', framings: { 'Speak and Flush': deepgramSpeech } },
  [`WS ${STREAM_INPUT}`]: {
    kind: 'speech',
    framings: { 'one context': async key => await socketSpeech(socketPath(STREAM_INPUT), key, [{ text: `${SENTENCE} `, flush: true }, { text: '' }]) }
  },
  [`WS ${MULTI_STREAM_INPUT}`]: {
    kind: 'speech',
    framings: { 'a named context': async key => await socketSpeech(socketPath(MULTI_STREAM_INPUT), key, [{ text: SENTENCE, context_id: 'a', flush: true }, { close_socket: true }]) }
  }
}

/** One key per speech route and framing, each with an audio quota its first speech passes. */
const SPEECH_KEYS = Object.entries(TABLE).flatMap(([route, door]) => door.kind === 'speech' ? Object.keys(door.framings).map(framing => `${route} ${framing}`) : [])
const speechKeyName = (row: string): string => `row-${SPEECH_KEYS.indexOf(row)}`
const KEYS: Record<string, unknown> = {
  [keyOf('user')]: { name: 'user' },
  [keyOf('ops')]: { name: 'ops', role: 'admin' },
  [keyOf('rpm')]: { name: 'rpm', quotas: { requests_per_minute: 2 } },
  [keyOf('ws-rpm')]: { name: 'ws-rpm', quotas: { requests_per_minute: 1 } },
  [keyOf('single')]: { name: 'single', quotas: { concurrent_streams: 1 } },
  ...Object.fromEntries(SPEECH_KEYS.map(row => [keyOf(speechKeyName(row)), { name: speechKeyName(row), quotas: { audio_seconds_per_minute: 0.001 } }]))
}

const dir = await mkdtemp(join(tmpdir(), 'chorus-admission-'))
const keysFile = join(dir, 'keys.json')
await writeFile(keysFile, JSON.stringify({ keys: KEYS }))
// The quotas' clock stands still: a minute never slides during the test, so each count is exact.
const service = await startTestService({ TTS_API_KEYS_FILE: keysFile, TTS_MAX_CONCURRENT_INFERENCES: '1' }, [VOICE], { quotaClock: () => 0 })
t.teardown(async () => {
  await service.stop()
  await rm(dir, { recursive: true, force: true })
})

const syntheses = (): number => service.logs.filter(line => line.msg === 'synthesis').length
const grants = (): Map<string, number> => new Map(service.deps.pools.gate.counts.granted)
/** chorus_key_audio_seconds_total by key. */
async function keyAudio (): Promise<Map<string, number>> {
  const { values } = await service.deps.metrics.keyAudioSeconds.get()
  return new Map(values.map(({ labels, value }) => [String(labels.key), value]))
}
/** The names whose count differs between two readings. */
const changed = (before: Map<string, number>, after: Map<string, number>): string[] => [...after].filter(([name, count]) => count !== (before.get(name) ?? 0)).map(([name]) => name).sort()
/** Equal to within half a sample: the same number of samples. */
const sameSamples = (a: number, b: number): boolean => Math.abs(a - b) < 0.5 / RATE

t.test('the table classifies every route the router holds and every WebSocket path, and nothing else', async t => {
  const registered = service.router.stack.flatMap(layer => layer.methods.filter(method => method !== 'HEAD').map(method => `${method} ${String(layer.path)}`))
  const routes = [...new Set([...registered, ...service.websockets.routes.map(route => `WS ${route}`)])].sort()
  t.ok(routes.length > 10, `${routes.length} routes read from the service`)
  t.same(routes.filter(route => !(route in TABLE)), [], 'every registered route has a row')
  t.same(Object.keys(TABLE).filter(route => !routes.includes(route)).sort(), [], 'every row is a registered route')
})

for (const row of SPEECH_KEYS) {
  const [route, framings] = Object.entries(TABLE).find(([name]) => row.startsWith(`${name} `)) as [string, { framings: Record<string, Framing> }]
  const framing = framings.framings[row.slice(route.length + 1)] as Framing
  const name = speechKeyName(row)
  t.test(`${row}: admitted, its audio counted against its key, its work in its key's share; then 429 at the audio quota`, async t => {
    const [slotsBefore, audioBefore] = [grants(), await keyAudio()]
    const first = await framing(keyOf(name))
    t.equal(first.status, 200, 'the first speech is admitted')
    t.ok(first.seconds > 0, `${first.seconds} s of audio came back`)
    const quotas = service.deps.access.quotas
    // A speech's audio is charged before it stops counting as pending.
    await eventually('the speech to end', () => service.deps.speech.pending === 0)
    t.ok(sameSamples(quotas.audioSeconds(name), first.seconds), `the key's quota is charged the audio it got (${quotas.audioSeconds(name)} s)`)
    const audioAfter = await keyAudio()
    t.same(changed(audioBefore, audioAfter), [name], 'the audio is counted under the key\'s name and no other')
    t.ok(sameSamples(audioAfter.get(name) ?? 0, first.seconds), 'chorus_key_audio_seconds_total counts it')
    const slotsAfter = grants()
    t.same(changed(slotsBefore, slotsAfter), [name], 'every inference slot the speech took was granted in its key\'s share')
    t.ok((slotsAfter.get(name) ?? 0) > 0, `${slotsAfter.get(name)} slots granted to ${name}`)

    const asked = syntheses()
    const second = await framing(keyOf(name))
    t.equal(second.status, 429, 'the next speech is refused at the quota')
    t.match(second.body, route === 'POST /v1/audio/speech'
      ? { error: { code: 'quota_exceeded', type: 'invalid_request_error', message: `The key "${name}" is over its quota of 0.001 audio seconds per minute: retry in 60 s` } }
      : { code: 'ERR_QUOTA_EXCEEDED', error: `The key "${name}" is over its quota of 0.001 audio seconds per minute: retry in 60 s` })
    t.equal(syntheses(), asked, 'nothing was synthesised for it')
  })
}

t.test('public paths answer without a key; keyed paths and /metrics need one and count it; admin paths refuse a user key', async t => {
  const sample: Record<string, string> = {
    'POST /admin/voices/:name': '/admin/voices/en_US-nobody-medium',
    'DELETE /admin/voices/:name': '/admin/voices/en_US-nobody-medium',
    'POST /admin/lexicons/:id': '/admin/lexicons/names',
    'GET /admin/lexicons/:id': '/admin/lexicons/names',
    'GET /admin/lexicons/:id/:version': '/admin/lexicons/names/1',
    'DELETE /admin/lexicons/:id': '/admin/lexicons/names',
    'DELETE /admin/lexicons/:id/:version': '/admin/lexicons/names/1',
    'GET /v1/heard/:id': '/v1/heard/no-such-request'
  }
  for (const [route, door] of Object.entries(TABLE)) {
    if (door.kind === 'speech') continue
    const [method, path] = route.split(' ') as [string, string]
    const url = `${service.url}${sample[route] ?? path}`
    const stranger = await request(url, { method })
    if (door.kind === 'public') {
      t.equal(stranger.status, 200, `${route}: public`)
      continue
    }
    t.equal(stranger.status, 401, `${route}: 401 without a key`)
    const user = await request(url, { method, headers: bearer(keyOf('user')) })
    if (door.kind === 'admin') {
      t.equal(user.status, 403, `${route}: 403 for a user key`)
      const ops = await request(url, { method, headers: bearer(keyOf('ops')) })
      t.notOk([401, 403].includes(ops.status), `${route}: an admin key passes (${ops.status})`)
    } else if (door.kind === 'lookup') {
      t.equal(user.status, 404, `${route}: past admission with a key (no such id: 404)`)
    } else {
      t.equal(user.status, 200, `${route}: 200 with a key`)
    }
  }
})

t.test('requests per minute, at every door: HTTP 429 on the next request, the WebSocket\'s on the next upgrade', async t => {
  for (let i = 0; i < 2; i++) t.equal((await request(`${service.url}/voices`, { headers: bearer(keyOf('rpm')) })).status, 200)
  const refused = await request(`${service.url}/voices`, { headers: bearer(keyOf('rpm')) })
  t.equal(refused.status, 429)
  t.match(refused.json, { code: 'ERR_QUOTA_EXCEEDED', quota: 'requests_per_minute', limit: 2, retry_after: 60 })
  t.equal(refused.headers.get('retry-after'), '60')
  const spoken = await socketSpeech(socketPath(STREAM_INPUT), keyOf('ws-rpm'), [{ text: `${TEXT} `, flush: true }, { text: '' }])
  t.equal(spoken.status, 200, 'the first upgrade is admitted')
  const upgrade = await socketSpeech(socketPath(STREAM_INPUT), keyOf('ws-rpm'), [])
  t.equal(upgrade.status, 429, 'the second upgrade is refused')
  t.match(upgrade.body, { code: 'ERR_QUOTA_EXCEEDED', quota: 'requests_per_minute', limit: 1, retry_after: 60 })
})

t.test('concurrent streams: a held HTTP stream takes the key\'s one place; a socket\'s speech is refused meanwhile; freed when it closes', async t => {
  let held: ClientRequest | undefined
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    held = httpRequest(`${service.url}/tts?stream=1`, { method: 'POST', headers: { ...bearer(keyOf('single')), 'Content-Type': 'application/json' } }, resolve)
    held.once('error', reject)
    held.end(JSON.stringify({ text: 'Hello there. '.repeat(200), voice: VOICE }))
  })
  t.equal(response.statusCode, 200)
  response.pause()
  const quotas = service.deps.access.quotas
  t.equal(quotas.openStreams('single'), 1)
  const refused = await post('/tts', keyOf('single'), { text: TEXT, voice: VOICE })
  t.equal(refused.status, 429)
  t.match(refused.json, { quota: 'concurrent_streams', limit: 1 })
  const socket = await socketSpeech(socketPath(MULTI_STREAM_INPUT), keyOf('single'), [{ text: TEXT, context_id: 'a', flush: true }, { close_socket: true }])
  t.equal(socket.status, 429, 'the socket\'s speech too')
  held?.on('error', () => {})
  held?.destroy()
  await eventually('the held stream to close', () => quotas.openStreams('single') === 0)
  t.equal((await post('/tts', keyOf('single'), { text: TEXT, voice: VOICE })).status, 200, 'admitted again once it closed')
  t.equal(quotas.openStreams('single'), 0, 'a whole answer frees its place when it is delivered')
})
