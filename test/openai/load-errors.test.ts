// Overload and timeout on /v1/audio/speech: the service's statuses (503 with
// Retry-After, 504) in OpenAI's error shape, raised by the client as APIError.
// A compressed answer waits for its first bytes before the status goes out,
// so a timeout before any audio is still a 504.

import OpenAI, { APIError } from 'openai'
import t from 'tap'
import { eventually } from '../helpers/hang-guard.js'
import { startTestService } from '../helpers/service.js'

const VOICES = ['en_US-probe-medium', 'en_US-probeslow-medium']

t.test('a full queue answers 503 with Retry-After', async t => {
  const service = await startTestService({ TTS_MAX_PENDING: '1', TTS_DEFAULT_VOICE: 'en_US-probeslow-medium' }, VOICES)
  t.teardown(() => service.stop())
  const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: 'x', maxRetries: 0 })
  const busy = client.audio.speech.create({ model: 'tts-1', voice: 'en_US-probeslow-medium' as 'alloy', input: 'One. Two. Three.', response_format: 'flac' })
  // Admitted, not a guess at how long admission takes.
  await eventually('the busy request to be admitted', () => service.deps.speech.pending > 0)
  const error = await client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi.' }).catch(e => e)
  t.type(error, APIError)
  t.equal(error.status, 503)
  t.match(error.headers.get('retry-after'), /^\d+$/)
  t.match(error.error, { message: /busy/, type: 'server_error', param: null, code: 'overloaded' })
  t.ok((await (await busy).arrayBuffer()).byteLength > 0, 'what was admitted is not lost')
})

t.test('a timeout before the first audio answers 504', async t => {
  // The slow voice loads at start-up (it is the default), before any clock runs.
  const service = await startTestService({ TTS_TIMEOUT_SECONDS: '0.1', TTS_WORKERS_PER_VOICE: '1', TTS_DEFAULT_VOICE: 'en_US-probeslow-medium' }, VOICES)
  t.teardown(() => service.stop())
  const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: 'x', maxRetries: 0 })
  const long = Array.from({ length: 16 }, (_, i) => `Sentence ${i + 1}.`).join(' ')
  const error = await client.audio.speech.create({ model: 'tts-1', voice: 'en_US-probeslow-medium' as 'alloy', input: long, response_format: 'mp3' }).catch(e => e)
  t.type(error, APIError)
  t.equal(error.status, 504)
  t.same(error.error, { message: 'TTS request timed out', type: 'server_error', param: null, code: 'timeout' })
})
