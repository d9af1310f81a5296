// Streams admitted by what the slots make (TTS_STREAM_ADMISSION,
// src/synthesis/stream-demand.ts): beyond it a new stream is refused with
// 503 and Retry-After in each protocol's shape (the service's error body,
// OpenAI's, the WebSocket's error message), while a whole answer is still
// served. The cost is injected into the service's own meter: the tests'
// probe voices make next to no audio, so the service would measure none.

import { request as httpRequest, type IncomingMessage } from 'node:http'
import OpenAI, { APIError } from 'openai'
import t from 'tap'
import WebSocket from 'ws'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, startTestService } from '../helpers/service.js'

const VOICE = 'en_US-probeslow-medium'
// One stream per 1000 audio seconds per second the slots make: a single listener fills it.
const service = await startTestService({ TTS_STREAM_ADMISSION: '0.001', TTS_DEFAULT_VOICE: VOICE }, ['en_US-probe-medium', VOICE])
t.teardown(() => service.stop())

/** A streamed answer whose reader takes its first chunk and then nothing. */
async function stalledStream (): Promise<IncomingMessage> {
  const text = Array.from({ length: 40 }, (_, i) => `Sentence number ${i + 1}.`).join(' ')
  return await new Promise((resolve, reject) => {
    const req = httpRequest(`${service.url}/tts`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      res.once('data', () => { res.pause(); resolve(res) })
    })
    req.on('error', reject)
    req.end(JSON.stringify({ text, voice: VOICE, stream: true }))
  })
}

t.test('a new stream beyond what the slots make: 503 with Retry-After, in every protocol', async t => {
  // 20 s of audio in 100 ms of inference, on each slot.
  service.deps.pools.gate.cost.observe(100, 20)
  const capacity = service.deps.pools.gate.cost.capacity(service.deps.pools.gate.limit) ?? 0
  t.ok(capacity > 0, 'the injected cost is what admission reads')
  const busy = await stalledStream()
  await eventually('one stream playing', () => service.deps.speech.streams.size === 1)

  const refused = await postTts(service.url, { text: 'Hello.', voice: VOICE, stream: true })
  t.equal(refused.status, 503)
  t.match(refused.headers.get('retry-after'), /^\d+$/)
  t.same(refused.json, {
    error: `Server is busy: 1 streams are playing and the service makes ${Math.round(capacity * 10) / 10} seconds of audio per second, retry later`,
    code: 'ERR_OVERLOADED',
    streams: 1,
    capacity_audio_seconds_per_second: Math.round(capacity * 10) / 10
  })

  const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: 'x', maxRetries: 0 })
  const openai = await client.audio.speech.create({ model: 'tts-1', voice: VOICE as 'alloy', input: 'Hello.', response_format: 'pcm' }).catch(e => e)
  t.type(openai, APIError)
  t.equal(openai.status, 503)
  t.match(openai.error, { message: /streams are playing/, type: 'server_error', code: 'overloaded' })

  const ws = new WebSocket(`${service.url.replace('http://', 'ws://')}/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_16000`)
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  const message = new Promise<Record<string, unknown>>(resolve => ws.once('message', data => resolve(JSON.parse(String(data)))))
  ws.send(JSON.stringify({ text: ' ' }))
  ws.send(JSON.stringify({ text: 'Hello there. ', flush: true }))
  t.match(await message, { error: /streams are playing/, code: 'ERR_OVERLOADED' })
  ws.close()

  const whole = await postTts(service.url, { text: 'Hello.', voice: VOICE })
  t.equal(whole.status, 200, 'a whole answer is not a stream: admitted')

  busy.destroy()
  await eventually('the stream to end', () => service.deps.speech.streams.size === 0)
  const after = await postTts(service.url, { text: 'Hello.', voice: VOICE, stream: true })
  t.equal(after.status, 200, 'admitted again once the stream ended')
})
