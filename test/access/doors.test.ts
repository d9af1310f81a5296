// Issue 42's findings 4, 5 and 6: a WebSocket upgrade is refused exactly
// where plain HTTP is (one function decides both: the page, by Origin or
// Sec-Fetch-Site, and the host name, TTS_ALLOWED_HOSTS, against DNS
// rebinding), and OpenAI's paths answer their refusals (401, 403, 429) in
// OpenAI's error shape. Raw requests, so Host and Sec-Fetch-* are what the
// test says.

import { randomBytes } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import t from 'tap'
import { HANG_GUARD_MS, startTestService } from '../helpers/service.js'

const USER = 'sk-user-0123456789abcdef'
const LIMITED = 'sk-limited-0123456789abcdef'
const PAGE = 'https://app.example'
const dir = await mkdtemp(join(tmpdir(), 'chorus-doors-'))
const keysFile = join(dir, 'keys.json')
await writeFile(keysFile, JSON.stringify({ keys: { [USER]: { name: 'bot-a' }, [LIMITED]: { name: 'limited', quotas: { requests_per_minute: 1 } } } }))
const service = await startTestService({ TTS_API_KEYS_FILE: keysFile, TTS_ALLOWED_ORIGINS: PAGE, TTS_ALLOWED_HOSTS: 'tts.test,.cluster.local' }, ['en_US-probe-medium'], { quotaClock: () => 0 })
t.teardown(async () => {
  await service.stop()
  await rm(dir, { recursive: true, force: true })
})
const { port } = new URL(service.url)

interface Answer { status: number, headers: IncomingHttpHeaders, body: any }

/** One raw request; an upgrade answered 101 is closed at once. */
async function send (method: string, path: string, headers: Record<string, string>, upgrade = false): Promise<Answer> {
  const socketHeaders = upgrade ? { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': randomBytes(16).toString('base64') } : {}
  return await new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { Host: `127.0.0.1:${port}`, ...socketHeaders, ...headers }, timeout: HANG_GUARD_MS })
    req.once('upgrade', (response, socket) => {
      socket.destroy()
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body: undefined })
    })
    req.once('response', response => {
      let text = ''
      response.on('data', (chunk: Buffer) => { text += String(chunk) })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) }))
    })
    req.once('error', reject)
    req.end()
  })
}

/** What each door did: the refusal's status and code, or "admitted". */
const verdict = (answer: Answer): string => [101, 200].includes(answer.status) ? 'admitted' : `${answer.status} ${answer.body?.code ?? answer.body?.error?.code}`

const CASES: Array<[string, Record<string, string>, string]> = [
  ['no browser headers (curl, SDKs)', {}, 'admitted'],
  ['the service\'s own page', { Origin: `http://127.0.0.1:${port}`, 'Sec-Fetch-Site': 'same-origin' }, 'admitted'],
  ['an allowed page', { Origin: PAGE, 'Sec-Fetch-Site': 'cross-site' }, 'admitted'],
  ['a foreign page with Origin', { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' }, '403 ERR_ORIGIN_NOT_ALLOWED'],
  ['Sec-Fetch-Site: cross-site without Origin', { 'Sec-Fetch-Site': 'cross-site' }, '403 ERR_ORIGIN_NOT_ALLOWED'],
  ['Sec-Fetch-Site: same-site without Origin', { 'Sec-Fetch-Site': 'same-site' }, '403 ERR_ORIGIN_NOT_ALLOWED'],
  ['Origin: null (a sandboxed page)', { Origin: 'null' }, '403 ERR_ORIGIN_NOT_ALLOWED'],
  ['an allowed host name', { Host: `tts.test:${port}` }, 'admitted'],
  ['a name under an allowed domain', { Host: `chorus.tts.cluster.local:${port}` }, 'admitted'],
  ['an IP address (probes, clients inside a cluster)', { Host: `[::1]:${port}` }, 'admitted'],
  ['a host name not on the list', { Host: `evil.example:${port}` }, '421 ERR_MISDIRECTED_REQUEST'],
  ['DNS rebinding: Host and Origin both the attacker\'s name', { Host: `rebind.evil.example:${port}`, Origin: `http://rebind.evil.example:${port}` }, '421 ERR_MISDIRECTED_REQUEST'],
  ['no key from an allowed page', { Origin: PAGE, 'xi-api-key': '' }, '401 ERR_UNAUTHORIZED']
]

t.test('the WebSocket upgrade is refused exactly where plain HTTP is', async t => {
  for (const [name, headers, expected] of CASES) {
    const withKey = { 'xi-api-key': USER, ...headers }
    const http = await send('GET', '/voices', withKey)
    const socket = await send('GET', '/v1/text-to-speech/en_US-probe-medium/stream-input', withKey, true)
    t.equal(verdict(http), expected, `HTTP: ${name}`)
    t.equal(verdict(socket), expected, `WebSocket: ${name}`)
  }
})

t.test('a refused host name: a message that names it and the setting', async t => {
  const answer = await send('GET', '/voices', { Host: `evil.example:${port}`, 'xi-api-key': USER })
  t.same(answer.body, { error: 'This request names the host "evil.example", which this service does not answer to: add it to TTS_ALLOWED_HOSTS to serve it', code: 'ERR_MISDIRECTED_REQUEST', host: 'evil.example' })
})

t.test('an allowed page reads its refusals: CORS answers on a 401', async t => {
  const answer = await send('GET', '/voices', { Origin: PAGE })
  t.equal(answer.status, 401)
  t.equal(answer.headers['access-control-allow-origin'], PAGE)
})

t.test('OpenAI\'s paths answer 401, 403, 421 and 429 in OpenAI\'s error shape', async t => {
  const shape = { error: { message: String, type: 'invalid_request_error', param: null, code: String } }
  const missing = await send('POST', '/v1/audio/speech', {})
  t.equal(missing.status, 401)
  t.match(missing.body, { ...shape, error: { ...shape.error, code: 'unauthorized', message: /^An API key is required/ } })
  t.equal(missing.headers['www-authenticate'], 'Bearer realm="chorus"')
  const page = await send('POST', '/v1/audio/speech', { Origin: 'https://evil.example' })
  t.equal(page.status, 403)
  t.match(page.body, { error: { code: 'origin_not_allowed', message: /^Requests from the web page at https:\/\/evil.example are not allowed/ } })
  const host = await send('GET', '/v1/models', { Host: `evil.example:${port}` })
  t.equal(host.status, 421)
  t.match(host.body, { error: { code: 'misdirected_request', type: 'invalid_request_error' } })
  t.equal((await send('GET', '/v1/models', { Authorization: `Bearer ${LIMITED}` })).status, 200)
  const quota = await send('GET', '/v1/models', { Authorization: `Bearer ${LIMITED}` })
  t.equal(quota.status, 429)
  t.same(quota.body, { error: { message: 'The key "limited" is over its quota of 1 requests per minute: retry in 60 s', type: 'invalid_request_error', param: null, code: 'quota_exceeded' } })
  t.equal(quota.headers['retry-after'], '60')
  for (const answer of [missing, page, host, quota]) t.same(Object.keys(answer.body), ['error'], 'nothing beside "error"')
  // What OpenAI's own client shows: the message, not "[object Object]" or a status line alone.
  const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: LIMITED, maxRetries: 0 })
  const refusal = await client.models.list().then(() => undefined, (error: unknown) => error)
  t.match(refusal, { status: 429, message: /The key "limited" is over its quota of 1 requests per minute/, code: 'quota_exceeded' })
  t.match((await send('GET', '/voices', {})).body, { code: 'ERR_UNAUTHORIZED' }, 'other paths keep the house shape')
})
