// Property-based checks of POST /v1/audio/speech against a real service on
// 127.0.0.1: arbitrary bodies and field values get a documented status, in
// OpenAI's error shape when they fail, never a 5xx other than 503/504 and
// never a hang-up; the service answers afterwards. Bounded in count
// (numRuns); `npm run fuzz` runs it longer.

import fc from 'fast-check'
import t from 'tap'
import { REQUEST_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { fuzzParameters } from '../helpers/fuzz.js'
import { request, startTestService } from '../helpers/service.js'

const service = await startTestService({}, ['en_US-probe-medium', 'en_GB-probemulti-medium'])
t.teardown(() => service.stop())

const DOCUMENTED = new Set([200, 400, 413, 415, 503, 504])

const anyJson = fc.jsonValue({ maxDepth: 3 })
const fields = fc.record({
  model: fc.oneof(fc.constantFrom('tts-1', 'tts-1-hd', 'gpt-4o-mini-tts', 'en_US-probe-medium', 'whisper-1', ''), anyJson),
  input: fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.constant('x'.repeat(4097)), anyJson),
  voice: fc.oneof(fc.constantFrom('alloy', 'echo', 'nova', 'cedar', 'en_US-probe-medium', 'en_US-espeak-low', '../x', ''), fc.record({ id: fc.oneof(fc.constantFrom('alloy', 'nope'), anyJson) }), anyJson),
  response_format: fc.oneof(fc.constantFrom('mp3', 'opus', 'aac', 'flac', 'wav', 'pcm', 'ogg', ''), anyJson),
  speed: fc.oneof(fc.double({ min: 0, max: 5, noNaN: true }), fc.double(), anyJson),
  stream_format: fc.oneof(fc.constantFrom('audio', 'sse', 'json'), anyJson),
  instructions: fc.oneof(fc.string({ maxLength: 40 }), anyJson)
}, { requiredKeys: [] })
const body = fc.oneof(
  fields.map(f => JSON.stringify(f)),
  anyJson.map(v => JSON.stringify(v)),
  fc.string({ unit: 'binary', maxLength: 120 })
)

t.test('bodies and field values: documented statuses, errors in OpenAI\'s shape', async t => {
  await fc.assert(fc.asyncProperty(body, async payload => {
    const answer = await fetch(`${service.url}/v1/audio/speech`, {
      method: 'POST', body: payload, headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(REQUEST_HANG_GUARD_MS)
    })
    const bytes = Buffer.from(await answer.arrayBuffer())
    const problem = `${payload.slice(0, 120)} → ${answer.status} ${bytes.toString('utf8').slice(0, 200)}`
    if (!DOCUMENTED.has(answer.status)) throw new Error(`undocumented status: ${problem}`)
    if (answer.status === 200) {
      if (bytes.length === 0 && !(answer.headers.get('content-type') ?? '').includes('event-stream')) throw new Error(`empty audio: ${problem}`)
      return
    }
    const parsed = JSON.parse(bytes.toString('utf8')) as { error?: { message?: unknown, type?: unknown, param?: unknown, code?: unknown } }
    const error = parsed.error
    if (typeof error?.message !== 'string' || typeof error.type !== 'string' || !('param' in error) || !('code' in error)) {
      throw new Error(`not OpenAI's error shape: ${problem}`)
    }
  }), fuzzParameters(120))
  t.equal((await request(service.url + '/health')).status, 200, 'the service still answers')
  t.notOk(service.logs.some(line => (line.level as number) >= 50), 'no error-level log line: nothing was a bug')
})
