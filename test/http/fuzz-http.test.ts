// Property-based checks of POST /tts and /v1/tts against a real service on
// 127.0.0.1: arbitrary bodies, field values and headers get a documented
// status (never a 5xx other than 503/504, never a hang-up), errors keep the
// {"error", "code"} shape, and the service still answers afterwards.
// Bounded in count (numRuns); a longer run is `npm run fuzz`.

import { request as httpRequest } from 'node:http'
import fc from 'fast-check'
import t from 'tap'
import { request, startTestService } from '../helpers/service.js'
import { fuzzParameters } from '../helpers/fuzz.js'

const service = await startTestService({}, ['en_US-probe-medium', 'en_GB-probemulti-medium'])
t.teardown(() => service.stop())
const { hostname, port } = new URL(service.url)

/** The statuses docs/api.md's error table documents for these routes (403:
 * an Origin header from another web page, which arbitrary headers may be). */
const DOCUMENTED = new Set([200, 400, 403, 413, 415, 503, 504])

interface Exchange {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
}

function post (path: string, headers: Record<string, string>, body: Buffer): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: hostname, port, path, method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, timeout: 30_000 }, response => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }))
      response.on('error', reject)
    })
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer to POST ${path}`)))
    outgoing.on('error', reject)
    outgoing.end(body)
  })
}

/** Whether an answer is one the README documents, in the shape it documents. */
function wellFormed (answer: Exchange): boolean {
  if (!DOCUMENTED.has(answer.status)) return false
  if (answer.status === 200) return answer.headers['content-type'] === 'audio/wav' && answer.body.subarray(0, 4).toString('latin1') === 'RIFF'
  const parsed = JSON.parse(answer.body.toString('utf8')) as { error?: unknown, code?: unknown }
  return typeof parsed.error === 'string' && typeof parsed.code === 'string' && parsed.code.startsWith('ERR_')
}

const path = fc.oneof(
  fc.constantFrom('/tts', '/v1/tts', '/tts?stream=1', '/v1/tts?stream=true', '/tts?stream=0'),
  fc.string({ unit: fc.constantFrom('a', '1', '%', '&', '=', 'é', '/'), maxLength: 12 }).map(query => `/tts?stream=${encodeURIComponent(query)}`)
)
const anyJson = fc.jsonValue({ maxDepth: 3 })
const shortText = fc.string({ unit: 'grapheme', maxLength: 80 })
const ttsFields = fc.record({
  text: fc.oneof(shortText, shortText, anyJson, fc.constant('x'.repeat(6000))),
  voice: fc.oneof(fc.constantFrom('en_US-probe-medium', 'en_GB-probemulti-medium', 'en_US-espeak-low', '../etc/passwd', ''), fc.string({ maxLength: 20 }), anyJson),
  speaker: fc.oneof(fc.integer({ min: -5, max: 200 }), fc.constantFrom('p239', ''), anyJson),
  length_scale: fc.oneof(fc.double(), fc.double({ min: 0.1, max: 5, noNaN: true }), anyJson),
  noise_scale: fc.oneof(fc.double(), anyJson),
  noise_w: fc.oneof(fc.double(), anyJson),
  sentence_silence: fc.oneof(fc.double({ min: -1, max: 11, noNaN: true }), anyJson),
  stream: fc.oneof(fc.boolean(), anyJson),
  extra: anyJson
}, { requiredKeys: [] })
const body = fc.oneof(
  ttsFields.map(fields => Buffer.from(JSON.stringify(fields))),
  anyJson.map(value => Buffer.from(JSON.stringify(value))),
  fc.string({ unit: 'binary', maxLength: 200 }).map(text => Buffer.from(text)),
  fc.uint8Array({ maxLength: 200 }).map(bytes => Buffer.from(bytes))
)
const contentType = fc.oneof(
  fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/merge-patch+json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', ''),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map(code => String.fromCharCode(code)), maxLength: 40 })
)
const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter(name => !['content-length', 'transfer-encoding', 'host', 'connection', 'expect', 'upgrade', 'content-type'].includes(name))
const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map(code => String.fromCharCode(code)), maxLength: 60 }).map(value => value.trim())
const extraHeaders = fc.dictionary(fc.oneof(headerName, fc.constantFrom('x-request-id', 'accept', 'accept-encoding', 'content-encoding', 'origin')), headerValue, { maxKeys: 5 })

function headersWith (type: string, extra: Record<string, string>): Record<string, string> {
  return type === '' ? extra : { ...extra, 'content-type': type }
}

t.test('bodies and field values: only documented statuses, in the documented shape', async t => {
  await fc.assert(fc.asyncProperty(path, contentType, body, async (target, type, payload) => {
    const answer = await post(target, headersWith(type, {}), payload)
    if (!wellFormed(answer)) throw new Error(`POST ${target} (${type}) ${payload.toString('utf8').slice(0, 80)} → ${answer.status} ${answer.body.toString('utf8').slice(0, 200)}`)
  }), fuzzParameters(150))
  t.equal((await request(service.url + '/health')).status, 200, 'the service still answers')
})

t.test('arbitrary headers with a valid body: only documented statuses', async t => {
  const valid = Buffer.from(JSON.stringify({ text: 'Hello there.' }))
  await fc.assert(fc.asyncProperty(path, extraHeaders, async (target, extra) => {
    const answer = await post(target, headersWith('application/json', extra), valid)
    if (!wellFormed(answer)) throw new Error(`POST ${target} ${JSON.stringify(extra)} → ${answer.status} ${answer.body.toString('utf8').slice(0, 200)}`)
  }), fuzzParameters(60, 0.5))
  t.equal((await request(service.url + '/health')).status, 200, 'the service still answers')
  t.notOk(service.logs.some(line => (line.level as number) >= 50), 'no error-level log line: nothing was a bug')
})
