// TTS_MAX_AUDIO_SECONDS: a text whose pauses alone pass the ceiling is
// refused before any work with 413 and an error naming the field, the
// ceiling and what arrived; one whose speech passes it stops there (413 when
// nothing was sent, a cut stream otherwise).

import { request as httpRequest } from 'node:http'
import t from 'tap'
import { defaultMaxAudioSeconds } from '../../src/service/config.js'
import { postTts, request, startTestService } from '../helpers/service.js'

const service = await startTestService({}, ['en_US-probe-medium'])
t.teardown(() => service.stop())

// 1250 one-word sentences with 10 s between them: 12 490 s of silence from a 5 KB body.
const PROBE = { text: Array.from({ length: 1250 }, () => 'Go.').join(' '), sentence_silence: 10, voice: 'en_US-espeak-low' }

t.test('the default ceiling comes from the longest text at the slowest length_scale', async t => {
  t.equal(defaultMaxAudioSeconds(5000), 2750)
  t.ok(defaultMaxAudioSeconds(10_000) > defaultMaxAudioSeconds(5000), 'a longer text limit raises it')
})

for (const stream of [false, true]) {
  t.test(`silence alone past the ceiling: 413 before any audio (stream: ${stream})`, async t => {
    const reply = await postTts(service.url, { ...PROBE, stream })
    t.equal(reply.status, 413)
    t.equal(reply.json.code, 'ERR_AUDIO_TOO_LONG')
    t.equal(reply.json.field, 'sentence_silence')
    t.equal(reply.json.limit_seconds, 2750)
    t.equal(reply.json.received_seconds, 12_490)
    t.equal(reply.json.error, 'Expected at most 2750 seconds of audio (TTS_MAX_AUDIO_SECONDS) for sentence_silence but received 10 s between each of 1250 sentences (12490 s of silence)')
  })
}

t.test('the OpenAI route keeps its own error shape for the same refusal', async t => {
  const tight = await startTestService({ TTS_MAX_AUDIO_SECONDS: '1' }, ['en_US-probe-medium'])
  t.teardown(() => tight.stop())
  const reply = await request(tight.url + '/v1/audio/speech', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'tts-1', voice: 'en_US-espeak-low', input: Array.from({ length: 40 }, () => 'A longer sentence that takes a while to say.').join(' ') })
  })
  t.equal(reply.status, 413)
  t.match(reply.json, { error: { type: 'invalid_request_error', param: 'text', code: 'audio_too_long' } })
})

t.test('speech past the ceiling stops: 413 for a whole file, a cut stream once audio went out', async t => {
  const tight = await startTestService({ TTS_MAX_AUDIO_SECONDS: '1' }, ['en_US-probe-medium'])
  t.teardown(() => tight.stop())
  const text = Array.from({ length: 40 }, () => 'A longer sentence that takes a while to say.').join(' ')
  const whole = await postTts(tight.url, { text, voice: 'en_US-espeak-low' })
  t.equal(whole.status, 413)
  t.equal(whole.json.code, 'ERR_AUDIO_TOO_LONG')
  t.equal(whole.json.field, 'text')
  t.match(whole.json.error, /^Expected at most 1 seconds of audio \(TTS_MAX_AUDIO_SECONDS\) for text but received text that speaks for more than \d+ s$/)

  const cut = await new Promise<{ status: number, complete: boolean }>((resolve, reject) => {
    const req = httpRequest(tight.url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      res.resume()
      res.on('error', () => {})
      res.on('close', () => resolve({ status: res.statusCode ?? 0, complete: res.complete }))
    })
    req.on('error', reject)
    req.end(JSON.stringify({ text, voice: 'en_US-espeak-low', stream: true }))
  })
  t.equal(cut.status, 200, 'the header went out with the first sentence')
  t.equal(cut.complete, false, 'the stream is cut, not ended as if complete')
  t.ok(tight.logs.some(line => line.msg === 'streaming synthesis stopped' && line.code === 'ERR_AUDIO_TOO_LONG'))
})
