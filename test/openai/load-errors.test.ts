// Overload and timeout on /v1/audio/speech: the service's statuses (503 with
// Retry-After, 504) in OpenAI's error shape, raised by the client as APIError.
// A compressed answer waits for its first bytes before the status goes out,
// so a timeout before any audio is still a 504.

import OpenAI, { APIError } from 'openai'
import t from 'tap'
import { eventually } from '../helpers/hang-guard.js'
import { holdSlots, startTestService } from '../helpers/service.js'

// The fast probe voice: what keeps a request waiting is an inference slot
// the test holds, however fast the machine, not a slow voice burning the CPU.
const VOICE = 'en_US-probe-medium'

t.test('a full queue answers 503 with Retry-After', async t => {
  const service = await startTestService({ TTS_MAX_PENDING: '1' }, [VOICE])
  t.teardown(() => service.stop())
  const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: 'x', maxRetries: 0 })
  const release = await holdSlots(service)
  const busy = client.audio.speech.create({ model: 'tts-1', voice: VOICE as 'alloy', input: 'One. Two. Three.', response_format: 'flac' })
  // Admitted, not a guess at how long admission takes.
  await eventually('the busy request to be admitted', () => service.deps.speech.pending > 0)
  // One the queue wrongly admitted would wait for a slot: the slots go once it is answered or admitted.
  let answered = false
  const refused = client.audio.speech.create({ model: 'tts-1', voice: 'alloy', input: 'Hi.' }).catch(e => e).finally(() => { answered = true })
  await eventually('the second request to be answered or admitted', () => answered || service.deps.speech.pending > 1)
  release()
  const error = await refused
  t.type(error, APIError)
  t.equal(error.status, 503)
  t.match(error.headers.get('retry-after'), /^\d+$/)
  t.match(error.error, { message: /busy/, type: 'server_error', param: null, code: 'overloaded' })
  t.ok((await (await busy).arrayBuffer()).byteLength > 0, 'what was admitted is not lost')
})

t.test('a timeout before the first audio answers 504', async t => {
  // The voice loads at start-up (it is the default), before any clock runs;
  // no sentence can run before the time is up while the test holds the slots.
  const service = await startTestService({ TTS_TIMEOUT_SECONDS: '0.1', TTS_WORKERS_PER_VOICE: '1' }, [VOICE])
  t.teardown(() => service.stop())
  // A service that never timed out would keep the request waiting for the held
  // slots: the client gives up after 30 s instead, and the test fails, not hangs.
  const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: 'x', maxRetries: 0, timeout: 30_000 })
  const long = Array.from({ length: 16 }, (_, i) => `Sentence ${i + 1}.`).join(' ')
  const release = await holdSlots(service)
  const error = await client.audio.speech.create({ model: 'tts-1', voice: VOICE as 'alloy', input: long, response_format: 'mp3' }).catch(e => e)
  release()
  t.type(error, APIError)
  t.equal(error.status, 504)
  t.same(error.error, { message: 'TTS request timed out', type: 'server_error', param: null, code: 'timeout' })
})
