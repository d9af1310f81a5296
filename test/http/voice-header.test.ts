// The voice in an X-Chorus-Voice header, for gateways that route on it.

import t from 'tap'
import { request, startTestService } from '../helpers/service.js'

const service = await startTestService()
t.teardown(() => service.stop())

async function post (body: unknown, voice?: string) {
  return await request(service.url + '/tts', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...(voice === undefined ? {} : { 'X-Chorus-Voice': voice }) }
  })
}

t.test('the header alone picks the voice', async t => {
  // Speaker 3 exists only in the multi-speaker voice, not in the default.
  t.equal((await post({ text: 'Hi.', speaker: 3 })).status, 400, 'the default voice has one speaker')
  const reply = await post({ text: 'Hi.', speaker: 3 }, 'en_GB-probemulti-medium')
  t.equal(reply.status, 200)
  t.equal(reply.headers.get('content-type'), 'audio/wav')
})

t.test('header and body naming the same voice agree', async t => {
  t.equal((await post({ text: 'Hi.', voice: 'en_GB-probemulti-medium', speaker: 3 }, 'en_GB-probemulti-medium')).status, 200)
})

t.test('header and body naming different voices: 400, the router chose one and the body asks for another', async t => {
  const reply = await post({ text: 'Hi.', voice: 'en_US-probe-medium' }, 'en_GB-probemulti-medium')
  t.equal(reply.status, 400)
  t.same(reply.json, {
    error: 'Expected the voice named by X-Chorus-Voice (en_GB-probemulti-medium), or no voice for voice but received "en_US-probe-medium" (string)',
    code: 'ERR_INVALID_ARGUMENT',
    field: 'voice',
    expected: 'the voice named by X-Chorus-Voice (en_GB-probemulti-medium), or no voice'
  })
})

t.test('the header is checked as a voice name', async t => {
  const reply = await post({ text: 'Hi.' }, '../../etc/passwd')
  t.equal(reply.status, 400)
  t.equal(reply.json.error, 'Expected a voice name like en_US-lessac-medium for X-Chorus-Voice but received "../../etc/passwd" (string)')
  const missing = await post({ text: 'Hi.' }, 'en_US-nobody-medium')
  t.equal(missing.status, 400)
  t.match(missing.json, { code: 'ERR_VOICE_NOT_FOUND', error: 'Voice model not found: en_US-nobody-medium' })
})
