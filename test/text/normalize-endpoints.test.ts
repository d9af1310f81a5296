// Where the normalizer applies: POST /tts leaves text as sent unless asked
// (normalize: true), the OpenAI endpoint normalizes unless told not to, and
// both go through the one speech service. Seen in what the probe voice
// spells out: its audio carries the phoneme ids it was given.

import t from 'tap'
import { readProbeOutput } from '../../scripts/lib/probe-model.js'
import { postTts, startTestService } from '../helpers/service.js'

const service = await startTestService({}, ['en_US-probe-medium', 'pt_BR-probe-medium'])
t.teardown(() => service.stop())

const RAW = 'It costs $5 today 🙂'
const SPOKEN = 'It costs 5 dollars today'

/** The phoneme ids a probe voice was given, read from its WAV. */
function ids (wav: Buffer): number[] {
  const pcm = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length))
  return readProbeOutput(Array.from(pcm, s => s / 32767), false).ids
}

async function tts (body: Record<string, unknown>): Promise<number[]> {
  const reply = await postTts(service.url, { voice: 'en_US-probe-medium', ...body })
  if (reply.status !== 200) throw new Error(`POST /tts ${reply.status}: ${reply.body.toString()}`)
  return ids(reply.body)
}

async function openai (body: Record<string, unknown>): Promise<number[]> {
  const reply = await postTts(service.url, { model: 'tts-1', voice: 'en_US-probe-medium', response_format: 'wav', ...body }, '/v1/audio/speech')
  if (reply.status !== 200) throw new Error(`POST /v1/audio/speech ${reply.status}: ${reply.body.toString()}`)
  return ids(reply.body)
}

t.test('/tts speaks text as sent by default; normalize: true reads it as meant', async t => {
  const raw = await tts({ text: RAW })
  const spoken = await tts({ text: SPOKEN })
  t.notSame(raw, spoken, 'the two readings differ (else this test shows nothing)')
  t.same(await tts({ text: RAW, normalize: false }), raw, 'normalize: false is the default')
  t.same(await tts({ text: RAW, normalize: true }), spoken, 'normalized: the ids of "5 dollars", no emoji')
})

t.test('/v1/audio/speech normalizes by default; normalize: false speaks the input as sent', async t => {
  const raw = await tts({ text: RAW })
  const spoken = await tts({ text: SPOKEN })
  t.same(await openai({ input: RAW }), spoken, 'on by default')
  t.same(await openai({ input: RAW, normalize: false }), raw, 'off when asked')
})

t.test('plain prose is the same audio either way', async t => {
  const text = 'The meeting went well, and everyone agreed on the next steps.'
  t.same(await tts({ text, normalize: true }), await tts({ text }))
})

t.test('a voice of another language is not normalized', async t => {
  const body = { text: RAW, voice: 'pt_BR-probe-medium' }
  t.same(await tts({ ...body, normalize: true }), await tts(body))
})

t.test('normalize must be a boolean, on both endpoints', async t => {
  const bad = await postTts(service.url, { text: RAW, normalize: 'yes' })
  t.equal(bad.status, 400)
  t.equal(bad.json.error, 'Expected a boolean for normalize but received "yes" (string)')
  const badOpenAI = await postTts(service.url, { model: 'tts-1', voice: 'en_US-probe-medium', input: RAW, normalize: 1 }, '/v1/audio/speech')
  t.equal(badOpenAI.status, 400)
  t.match(badOpenAI.json.error.message, /^Expected a boolean for normalize but received 1 \(number\)/)
})
