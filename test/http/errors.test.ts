// Every error row of the contract: status, the `error` string clients read,
// the machine code, and for field errors which field, what was expected and
// what arrived.

import type { AddressInfo } from 'node:net'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import Koa from 'koa'
import t from 'tap'
import type { ChorusState } from '../../src/http/context.js'
import { serviceErrors } from '../../src/http/app.js'
import { postTts, request, startTestService } from '../helpers/service.js'

const service = await startTestService({ TTS_MAX_TEXT_LENGTH: '50' })
t.teardown(() => service.stop())
const base = service.url
const raw = (body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
  request(base + '/tts', { method: 'POST', body, headers })

t.test('invalid JSON body: 400 "Invalid JSON body"', async t => {
  for (const body of ['{"text": "hi"', 'not json', '[1,2]', '"just a string"', '42', 'null', '']) {
    const reply = await raw(body)
    t.equal(reply.status, 400, JSON.stringify(body))
    t.same(reply.json, { error: 'Invalid JSON body', code: 'ERR_INVALID_JSON' })
  }
})

t.test('missing text: 400 "Missing required field: text"', async t => {
  for (const body of [{}, { text: 42 }, { text: null }, { text: '' }, { text: ' \n\t ' }, { voice: 'en_US-probe-medium' }]) {
    const reply = await postTts(base, body)
    t.equal(reply.status, 400, JSON.stringify(body))
    t.same(reply.json, { error: 'Missing required field: text', code: 'ERR_MISSING_TEXT' })
  }
})

t.test('text of only zero-width or invisible characters: 400 naming text, the expectation and what arrived (not an empty WAV)', async t => {
  for (const text of ['\u200b', '\u200b\u200c\u200d', ' \ufeff\u2060 ', '\u00ad\ufe0f']) {
    const reply = await postTts(base, { text })
    t.equal(reply.status, 400, JSON.stringify(text))
    const shown = JSON.stringify(text).replace(/[^ -~]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    t.same(reply.json, {
      error: `Expected text with at least one visible character for text but received ${shown} (string)`,
      code: 'ERR_INVALID_ARGUMENT',
      field: 'text',
      expected: 'text with at least one visible character'
    })
  }
  const spoken = await postTts(base, { text: 'Hi\u200b there.' })
  t.equal(spoken.status, 200, 'a zero-width character inside words is still spoken')
})

t.test('voice not installed: 400 with available_voices', async t => {
  const reply = await postTts(base, { text: 'Hi.', voice: 'en_US-nobody-medium' })
  t.equal(reply.status, 400)
  t.equal(reply.json.error, 'Voice model not found: en_US-nobody-medium')
  t.equal(reply.json.code, 'ERR_VOICE_NOT_FOUND')
  t.same(reply.json.available_voices, ['en_GB-probemulti-medium', 'en_US-espeak-low', 'en_US-probe-medium', 'en_US-probeslow-medium'])
})

t.test('a voice name is never a path', async t => {
  // A real file outside the voice folder, reachable by a relative path.
  await writeFile(join(service.voiceDir, '..', 'chorus-outside.onnx.json'), '{}')
  for (const voice of ['../x', '/etc/passwd', '../chorus-outside', 'en_US-probe-medium/../en_US-probe-medium', 'a\\b', 'en_US-probe\u0000-medium', '.', '..', 'en_US-probe-medium.onnx']) {
    const reply = await postTts(base, { text: 'Hi.', voice })
    t.equal(reply.status, 400, JSON.stringify(voice))
    t.equal(reply.json.error, `Voice model not found: ${voice}`)
  }
})

t.test('wrong types and ranges name the field, the expectation and what arrived', async t => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ voice: 7 }, 'Expected a voice name (string) for voice but received 7 (number)'],
    [{ length_scale: '1.0' }, 'Expected a number for length_scale but received "1.0" (string)'],
    [{ length_scale: 0.09 }, 'Expected a number from 0.1 to 5 for length_scale but received 0.09 (number)'],
    [{ length_scale: 5.01 }, 'Expected a number from 0.1 to 5 for length_scale but received 5.01 (number)'],
    [{ noise_scale: -0.01 }, 'Expected a number from 0 to 2 for noise_scale but received -0.01 (number)'],
    [{ noise_scale: 2.5 }, 'Expected a number from 0 to 2 for noise_scale but received 2.5 (number)'],
    [{ noise_w: true }, 'Expected a number for noise_w but received true (boolean)'],
    [{ noise_w: 2.01 }, 'Expected a number from 0 to 2 for noise_w but received 2.01 (number)'],
    [{ sentence_silence: -1 }, 'Expected a number from 0 to 10 for sentence_silence but received -1 (number)'],
    [{ sentence_silence: 10.5 }, 'Expected a number from 0 to 10 for sentence_silence but received 10.5 (number)'],
    [{ speaker: 1 }, 'Expected an integer from 0 to 0 or a speaker name for speaker but received 1 (number)'],
    [{ speaker: 1.5 }, 'Expected an integer speaker id or a speaker name for speaker but received 1.5 (number)'],
    [{ speaker: [1] }, 'Expected an integer speaker id or a speaker name for speaker but received [1] (array)'],
    [{ voice: 'en_GB-probemulti-medium', speaker: 109 }, 'Expected an integer from 0 to 108 or a speaker name for speaker but received 109 (number)'],
    [{ voice: 'en_GB-probemulti-medium', speaker: -1 }, 'Expected an integer from 0 to 108 or a speaker name for speaker but received -1 (number)'],
    [{ stream: 'yes' }, 'Expected a boolean for stream but received "yes" (string)'],
    [{ after: 'has space' }, 'Expected a request id (1 to 128 letters, digits, ".", "_", ":" or "-") for after but received "has space" (string)'],
    [{ after: 12 }, 'Expected a request id (1 to 128 letters, digits, ".", "_", ":" or "-") for after but received 12 (number)']
  ]
  for (const [fields, message] of cases) {
    const reply = await postTts(base, { text: 'Hi.', ...fields })
    t.equal(reply.status, 400, JSON.stringify(fields))
    t.equal(reply.json.error, message)
    t.equal(reply.json.code, 'ERR_INVALID_ARGUMENT')
    t.equal(reply.json.field, Object.keys(fields).at(-1))
  }
  const unknownName = await postTts(base, { text: 'Hi.', voice: 'en_GB-probemulti-medium', speaker: 'nobody' })
  t.match(unknownName.json.error, /^Expected one of this voice's speaker names \(p\w+, .*\) or an id for speaker but received "nobody" \(string\)$/)
})

t.test('range edges are accepted', async t => {
  for (const fields of [{ after: 'a-request-never-sent' }, { after: 'x'.repeat(128) }, { length_scale: 0.1 }, { length_scale: 5 }, { noise_scale: 0 }, { noise_scale: 2 }, { noise_w: 0 }, { noise_w: 2 }, { sentence_silence: 0 }, { sentence_silence: 10 }, { voice: 'en_GB-probemulti-medium', speaker: 108 }, { speaker: 0 }]) {
    const reply = await postTts(base, { text: 'Hi.', ...fields })
    t.equal(reply.status, 200, JSON.stringify(fields))
  }
})

t.test('text longer than the limit: 413 naming the limit', async t => {
  t.equal((await postTts(base, { text: 'a'.repeat(50) })).status, 200, 'exactly the limit is fine')
  t.equal((await postTts(base, { text: '😀'.repeat(50) })).status, 200, 'characters are code points')
  const reply = await postTts(base, { text: 'a'.repeat(51) })
  t.equal(reply.status, 413)
  t.match(reply.json, { error: 'Text is too long: 51 characters, the limit is 50', code: 'ERR_TEXT_TOO_LONG', limit: 50 })
})

t.test('content types: JSON without Content-Type is accepted, others get 415', async t => {
  const bare = await request(base + '/tts', { method: 'POST', body: new Blob(['{"text":"Hi."}']) })
  t.equal(bare.status, 200)
  t.equal(bare.headers.get('content-type'), 'audio/wav')
  t.equal((await raw('{"text":"Hi."}', { 'Content-Type': 'application/json; charset=utf-8' })).status, 200)
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const reply = await raw('{"text":"Hi."}', { 'Content-Type': type })
    t.equal(reply.status, 415, type)
    t.equal(reply.json.code, 'ERR_UNSUPPORTED_MEDIA_TYPE')
  }
})

t.test('a model that does not load: 500 naming the voice and why, details in the log', async t => {
  // A voice whose config is valid but whose model is not a model at all.
  await writeFile(join(service.voiceDir, 'en_US-garbage-medium.onnx'), 'definitely not onnx')
  await writeFile(join(service.voiceDir, 'en_US-garbage-medium.onnx.json'), await (await import('node:fs/promises')).readFile(join(service.voiceDir, 'en_US-probe-medium.onnx.json')))
  await service.deps.registry.rescan()
  const reply = await postTts(base, { text: 'Hi.', voice: 'en_US-garbage-medium' })
  t.equal(reply.status, 500)
  t.match(reply.json, { error: /^Voice en_US-garbage-medium cannot be loaded: .+/, code: 'ERR_VOICE_BROKEN', voice: 'en_US-garbage-medium' })
  t.notMatch(reply.json.error, service.voiceDir, 'no server folders in the answer')
  // Refused by the scan (its header is not ONNX's), so logged as a voice left out, with its folder.
  t.ok(service.logs.some(line => (line.level as number) >= 40 && line.voice === 'en_US-garbage-medium' && line.dir === service.voiceDir), 'the log has the details')
  t.equal((await postTts(base, { text: 'Hi.' })).status, 200, 'the service carries on')
})

t.test('anything unexpected (a bug): 500 with a generic message, details only in the log', async t => {
  const app = new Koa<ChorusState>()
  const logged: unknown[] = []
  app.use(async (ctx, next) => {
    ctx.state.log = { info: () => {}, warn: () => {}, debug: () => {}, error: (...args: unknown[]) => { logged.push(args) } } as unknown as ChorusState['log']
    await next()
  })
  app.use(serviceErrors())
  app.use(() => { throw new Error('the secret detail of a bug') })
  const server = app.listen(0, '127.0.0.1')
  t.teardown(() => server.close())
  await new Promise(resolve => server.once('listening', resolve))
  const { port } = server.address() as AddressInfo
  const reply = await request(`http://127.0.0.1:${port}/anything`)
  t.equal(reply.status, 500)
  t.same(reply.json, { error: 'Internal server error', code: 'ERR_INTERNAL' })
  t.match(JSON.stringify(logged.map(args => (args as Array<{ err?: Error }>)[0]?.err?.message)), /the secret detail of a bug/, 'the details go to the log only')
})
