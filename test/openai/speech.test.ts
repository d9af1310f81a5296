// POST /v1/audio/speech driven by the official `openai` client: every format
// decodes (or its container checks out; aac has its own file, aac.test.ts),
// speed, voice mapping, errors as the client's APIError, and stream_format "sse".

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI, { APIError } from 'openai'
import t from 'tap'
import { OPUS_RATE } from '../../src/audio/opus.js'
import { parseWav } from '../../src/engine/index.js'
import { readProbeOutput } from '../../scripts/lib/probe-model.js'
import { decodeFlac, decodeMp3, decodeOggOpus, mp3Frames } from '../helpers/audio-decode.js'
import { request, startTestService } from '../helpers/service.js'
import { unless, whyUnavailable } from '../helpers/test-tools.js'

const mapDir = await mkdtemp(join(tmpdir(), 'chorus-openai-'))
const mapFile = join(mapDir, 'voices.json')
await writeFile(mapFile, JSON.stringify({ alloy: { voice: 'en_GB-probemulti-medium', speaker: 3 }, narrator: 'en_US-espeak-low' }))
// proberyan, not the helper's probeslow: a voice named by id only has to be
// another installed voice, and probeslow's load and sentences take seconds.
const service = await startTestService({ TTS_OPENAI_VOICES: mapFile }, ['en_US-probe-medium', 'en_GB-probemulti-medium', 'en_US-proberyan-medium'])
t.teardown(async () => {
  await service.stop()
  await rm(mapDir, { recursive: true, force: true })
})
const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: 'x', maxRetries: 0 })
const TEXT = 'Hello, how can I help you today? The weather is fine.'
const SPEECH = 'en_US-espeak-low'

async function speak (params: Partial<OpenAI.Audio.SpeechCreateParams>): Promise<{ bytes: Buffer, headers: Headers }> {
  const response = await client.audio.speech.create({ model: 'tts-1', input: TEXT, voice: SPEECH as 'alloy', ...params })
  return { bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers }
}

/** The built-in voice's speech as WAV, the reference length for each format
 * (espeak's timing varies by some 20 samples between runs, and its first
 * synthesis in a process is some 10 ms longer: it is warmed up first). */
await speak({ response_format: 'wav' })
const reference = parseWav((await speak({ response_format: 'wav' })).bytes)

t.test('mp3 is the default: audio/mpeg, whole frames, the speech\'s length', async t => {
  const { bytes, headers } = await speak({})
  t.equal(headers.get('content-type'), 'audio/mpeg')
  t.equal(headers.get('transfer-encoding'), 'chunked', 'streamed as it is made')
  const info = mp3Frames(bytes)
  t.equal(info.sampleRate, reference.sampleRate)
  t.ok(Math.abs(info.duration - reference.duration) < 0.1, `mp3 ${info.duration} s vs wav ${reference.duration} s`)
})

t.test('mp3 decodes (mpg123) to the speech\'s length', unless(whyUnavailable(['mpg123'])), async t => {
  const { bytes } = await speak({})
  t.ok(Math.abs(decodeMp3(bytes).length / reference.sampleRate - reference.duration) < 0.1, 'decodes to the same length')
})

t.test('opus is Ogg Opus at 24 kHz and decodes to the same length', async t => {
  const { bytes, headers } = await speak({ response_format: 'opus' })
  t.equal(headers.get('content-type'), 'audio/ogg')
  const { head, pcm } = decodeOggOpus(bytes)
  t.match(head, { channels: 1, inputRate: reference.sampleRate })
  t.ok(Math.abs(pcm.length / 48000 - reference.duration) < 0.005, `opus ${pcm.length / 48000} s vs ${reference.duration} s`)
  t.equal(OPUS_RATE, 24000)
})

t.test('flac is lossless: the same samples as wav', async t => {
  const { bytes, headers } = await speak({ response_format: 'flac' })
  t.equal(headers.get('content-type'), 'audio/flac')
  const decoded = await decodeFlac(bytes)
  t.equal(decoded.sampleRate, reference.sampleRate)
  t.ok(Math.abs(decoded.pcm.length / decoded.sampleRate - reference.duration) < 0.005, 'the speech\'s length')
  // The probe voice is deterministic (espeak's timing varies by a few samples).
  const probe = { voice: 'en_US-probe-medium' as 'alloy' }
  const wav = (await speak({ ...probe, response_format: 'wav' })).bytes
  const flac = await decodeFlac((await speak({ ...probe, response_format: 'flac' })).bytes)
  t.same(Buffer.from(flac.pcm.buffer), wav.subarray(44))
})

t.test('wav at the voice\'s rate, pcm raw at 24 kHz', async t => {
  const wav = await speak({ response_format: 'wav' })
  t.equal(wav.headers.get('content-type'), 'audio/wav')
  t.equal(reference.sampleRate, 22050)
  const pcm = await speak({ response_format: 'pcm' })
  t.equal(pcm.headers.get('content-type'), 'audio/pcm')
  t.ok(Math.abs(pcm.bytes.length / 2 / 24000 - reference.duration) < 0.005, 'the speech\'s length')
  const probe = { voice: 'en_US-probe-medium' as 'alloy' }
  const probeWav = parseWav((await speak({ ...probe, response_format: 'wav' })).bytes)
  const probePcm = (await speak({ ...probe, response_format: 'pcm' })).bytes
  t.equal(probePcm.length / 2, Math.round(probeWav.dataBytes / 2 * 24000 / 22050), 'resampled to exactly 24 kHz')
})

t.test('an unknown format is refused with the formats listed', async t => {
  const error = await client.audio.speech.create({ model: 'tts-1', input: TEXT, voice: 'alloy', response_format: 'ogg' as 'mp3' }).catch(e => e)
  t.type(error, APIError)
  t.equal(error.status, 400)
  t.equal(error.error.message, 'Expected one of mp3, opus, aac, flac, wav, pcm for response_format but received "ogg" (string)')
  t.match(error.error, { type: 'invalid_request_error', param: 'response_format', code: 'invalid_argument' })
})

t.test('speed: the voice\'s length_scale divided by speed; faster is shorter', async t => {
  for (const speed of [0.5, 1, 2]) {
    const { bytes } = await speak({ voice: 'en_US-probe-medium' as 'alloy', response_format: 'wav', speed })
    const pcm = new Int16Array(bytes.buffer.slice(bytes.byteOffset + 44, bytes.byteOffset + bytes.length))
    const reading = readProbeOutput(Array.from(pcm, s => s / 32767), false)
    t.ok(Math.abs(reading.lengthScale - 1 / speed) < 0.01, `speed ${speed}: length_scale ${reading.lengthScale}`)
  }
  const fast = mp3Frames((await speak({ speed: 2 })).bytes).duration
  const normal = mp3Frames((await speak({ speed: 1 })).bytes).duration
  t.ok(fast < normal * 0.75, `speed 2: ${fast} s against ${normal} s`)
})

t.test('voice mapping: the file\'s entries, defaults onto missing voices, Piper names, {"id"}', async t => {
  const read = (bytes: Buffer, multi: boolean) => readProbeOutput(Array.from(new Int16Array(bytes.buffer.slice(bytes.byteOffset + 44, bytes.byteOffset + bytes.length)), s => s / 32767), multi)
  const alloy = await speak({ voice: 'alloy', response_format: 'wav' })
  t.equal(alloy.headers.get('x-chorus-voice'), 'en_GB-probemulti-medium')
  t.equal(read(alloy.bytes, true).speakerId, 3, 'the mapped speaker')
  // echo's default target (en_US-ryan-medium) is not installed here.
  const echo = await speak({ voice: 'echo', response_format: 'wav' })
  t.equal(echo.headers.get('x-chorus-voice'), 'en_US-probe-medium', 'the default voice speaks instead')
  t.ok(service.logs.some(l => l.msg === 'mapped voice not installed: the default voice speaks' && l.mapped === 'en_US-ryan-medium'))
  const narrator = await speak({ voice: 'narrator' as 'alloy', response_format: 'wav' })
  t.equal(narrator.headers.get('x-chorus-voice'), 'en_US-espeak-low', 'a name the file adds')
  const byId = await speak({ voice: { id: 'en_US-proberyan-medium' } as unknown as 'alloy', response_format: 'wav' })
  t.equal(byId.headers.get('x-chorus-voice'), 'en_US-proberyan-medium')
  const asModel = await speak({ model: 'en_GB-probemulti-medium', voice: '7' as 'alloy', response_format: 'wav' })
  t.equal(read(asModel.bytes, true).speakerId, 7, 'model names the voice, voice its speaker')
})

t.test('errors come back in OpenAI\'s shape and surface as APIError', async t => {
  const cases: Array<[Record<string, unknown>, number, string | null, RegExp]> = [
    [{ voice: 'nobody' }, 400, 'voice', /Voice model not found: nobody/],
    [{ speed: 5 }, 400, 'speed', /Expected a number from 0.25 to 4 for speed but received 5 \(number\)/],
    [{ model: 'tts-9' }, 400, 'model', /Expected one of tts-1, tts-1-hd, gpt-4o-mini-tts or an installed voice name for model/],
    [{ input: 'x'.repeat(4097) }, 400, 'input', /Expected a string of 1 to 4096 characters/],
    [{ input: '   ' }, 400, 'input', /for input but received " {3}"/],
    [{ input: '\u200b\u200d' }, 400, 'input', /Expected text with at least one visible character for input but received "\\u200b\\u200d" \(string\)/],
    [{ stream_format: 'ws' }, 400, 'stream_format', /Expected one of audio, sse for stream_format/],
    [{ input: undefined }, 400, 'input', /for input but received undefined/]
  ]
  for (const [patch, status, param, message] of cases) {
    const error = await client.audio.speech.create({ model: 'tts-1', input: 'Hi.', voice: 'alloy', ...patch } as OpenAI.Audio.SpeechCreateParams).catch(e => e)
    t.type(error, APIError, JSON.stringify(patch))
    t.equal(error.status, status)
    t.match(error.message, message)
    t.match(error.error, { type: 'invalid_request_error', param })
  }
})

t.test('our own text limit answers 413 in OpenAI\'s shape', async t => {
  const small = await startTestService({ TTS_MAX_TEXT_LENGTH: '20' })
  t.teardown(() => small.stop())
  const reply = await request(`${small.url}/v1/audio/speech`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'This text is longer than twenty.' }) })
  t.equal(reply.status, 413)
  t.same(reply.json, { error: { message: 'Text is too long: 32 characters, the limit is 20', type: 'invalid_request_error', param: 'input', code: 'text_too_long' } })
})

t.test('stream_format sse: base64 deltas that join to the audio, then done with usage', async t => {
  const reply = await request(`${service.url}/v1/audio/speech`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini-tts', voice: SPEECH, input: TEXT, response_format: 'opus', stream_format: 'sse' }) })
  t.equal(reply.status, 200)
  t.match(reply.headers.get('content-type'), /^text\/event-stream/)
  const events = reply.body.toString().split('\n\n').filter(e => e !== '').map(e => {
    t.match(e, /^data: /)
    return JSON.parse(e.slice('data: '.length))
  })
  const last = events.pop()
  t.same(last, { type: 'speech.audio.done', usage: { input_tokens: TEXT.length, output_tokens: 0, total_tokens: TEXT.length } })
  t.ok(events.length > 1, 'several deltas')
  for (const e of events) t.same(Object.keys(e), ['type', 'audio'])
  const audio = Buffer.concat(events.map(e => Buffer.from(e.audio, 'base64')))
  t.ok(Math.abs(decodeOggOpus(audio).pcm.length / 48000 - reference.duration) < 0.005, 'the deltas are the whole Ogg Opus file')
})

t.test('GET /v1/models and GET /v1/audio/voices', async t => {
  const models = await client.models.list()
  const ids = models.data.map(m => m.id)
  t.same(ids.slice(0, 3), ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts'])
  t.ok(ids.includes('en_GB-probemulti-medium'))
  const voices = (await request(`${service.url}/v1/audio/voices`)).json.voices
  t.match(voices.find((v: { id: string }) => v.id === 'alloy'), { type: 'openai', voice: 'en_GB-probemulti-medium', speaker: 3, language: 'en' })
  t.match(voices.find((v: { id: string }) => v.id === 'onyx'), { voice: 'en_US-probe-medium', mapped_voice_missing: 'en_US-ryan-medium' })
  const multi = voices.find((v: { id: string }) => v.id === 'en_GB-probemulti-medium')
  t.equal(multi.speakers.length, 109)
  t.equal(multi.type, 'piper')
})

t.test('the phrase cache keeps each format apart', async t => {
  const cached = await startTestService({ TTS_CACHE_BYTES: String(8 * 1024 * 1024) })
  t.teardown(() => cached.stop())
  const cachedClient = new OpenAI({ baseURL: `${cached.url}/v1`, apiKey: 'x', maxRetries: 0 })
  const get = async (format: 'mp3' | 'flac') => Buffer.from(await (await cachedClient.audio.speech.create({ model: 'tts-1', input: 'Cached phrase.', voice: SPEECH as 'alloy', response_format: format })).arrayBuffer())
  const mp3 = await get('mp3')
  const flac = await get('flac')
  t.same(await get('mp3'), mp3, 'a hit gives the same bytes')
  t.same(await get('flac'), flac)
  t.not(mp3.subarray(0, 4).toString('hex'), flac.subarray(0, 4).toString('hex'), 'formats are not mixed up')
  t.equal(cached.deps.cache.size, 2, 'one entry per format')
  const metrics = (await request(`${cached.url}/metrics`)).body.toString()
  t.match(metrics, /chorus_cache_hits_total 2/)
})
