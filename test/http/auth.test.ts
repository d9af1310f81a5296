// The service with a keys file: the probes stay open, everything else needs
// a key (401 with a Bearer challenge, before any work), clients that send a
// key (curl-like fetch, the OpenAI client, the playground in Chromium) are
// served and speak for their key's name, the quotas answer 429 at exactly
// their limit with a computed Retry-After (the quotas' clock is the test's:
// it stands still unless the test moves it, so a busy machine cannot slide
// the minute and a limit wrong by one fails), an edit of the file is picked
// up while running, and the WebSocket upgrade takes the same keys.

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI, { AuthenticationError } from 'openai'
import t from 'tap'
import WebSocket from 'ws'
import { launchChromium, NO_CHROMIUM } from '../helpers/chromium.js'
import { eventually } from '../helpers/hang-guard.js'
import { request, startTestService } from '../helpers/service.js'
import { unless } from '../helpers/test-tools.js'

const USER = 'sk-user-0123456789abcdef'
const LIMITED = 'sk-limited-0123456789abcdef'
const SINGLE = 'sk-single-0123456789abcdef'
const CAPPED = 'sk-capped-0123456789abcdef'
const NEW = 'sk-new-0123456789abcdefgh'
const KEYS = {
  [USER]: { name: 'bot-a' },
  [LIMITED]: { name: 'limited', quotas: { requests_per_minute: 3 } },
  [SINGLE]: { name: 'single', quotas: { concurrent_streams: 1 } },
  [CAPPED]: { name: 'capped', quotas: { audio_seconds_per_minute: 0.5 } }
}
const dir = await mkdtemp(join(tmpdir(), 'chorus-keys-'))
const keysFile = join(dir, 'keys.json')
await writeFile(keysFile, JSON.stringify({ keys: KEYS }))
/** The quotas' clock (ms): still unless a test moves it. */
let quotaNow = 1_000_000
const service = await startTestService({ TTS_API_KEYS_FILE: keysFile, TTS_API_KEYS_RELOAD_SECONDS: '0.1' }, undefined, { quotaClock: () => quotaNow })
t.teardown(async () => {
  await service.stop()
  await rm(dir, { recursive: true, force: true })
})

const VOICE = 'en_US-espeak-low'
const SPEECH = JSON.stringify({ text: 'Hello there.', voice: VOICE })
const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` })
const tts = async (headers: Record<string, string>, body = SPEECH): ReturnType<typeof request> =>
  await request(`${service.url}/tts`, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } })
const syntheses = (): number => service.logs.filter(line => line.msg === 'synthesis').length
const metric = async (pattern: RegExp): Promise<number> => {
  const text = (await request(`${service.url}/metrics`, { headers: bearer(USER) })).body.toString()
  return Number(pattern.exec(text)?.[1] ?? Number.NaN)
}

t.test('without a key: the probes and the playground answer, everything else is 401 before any work', async t => {
  for (const path of ['/health', '/ready', '/', '/playground.js']) t.equal((await request(service.url + path)).status, 200, path)
  const before = syntheses()
  for (const [path, init] of [['/voices', {}], ['/metrics', {}], ['/openapi.json', {}], ['/no-such-route', {}], ['/tts', { method: 'POST', body: SPEECH }], ['/v1/audio/speech', { method: 'POST', body: '{}' }]] as const) {
    const reply = await request(service.url + path, init)
    t.equal(reply.status, 401, path)
    t.equal(reply.headers.get('www-authenticate'), 'Bearer realm="chorus"', path)
    // OpenAI's paths answer in OpenAI's error shape (issue 42, finding 6).
    t.equal(path.startsWith('/v1/audio/') ? reply.json?.error?.code : reply.json?.code, path.startsWith('/v1/audio/') ? 'unauthorized' : 'ERR_UNAUTHORIZED', path)
  }
  t.equal(syntheses(), before, 'nothing was synthesised')
})

t.test('with a key, as Bearer or xi-api-key: served, and counted under its name', async t => {
  const reply = await tts(bearer(USER))
  t.equal(reply.status, 200)
  t.equal(reply.headers.get('content-type'), 'audio/wav')
  t.equal((await tts({ 'xi-api-key': USER })).status, 200)
  t.equal((await request(`${service.url}/voices`, { headers: bearer(USER) })).status, 200)
  // The speech's tenant came from the key: its audio is counted under the key's name.
  await eventually('the audio counted for bot-a', async () => await metric(/chorus_key_audio_seconds_total\{key="bot-a"\} ([\d.e+-]+)/) > 0)
  t.ok(await metric(/chorus_key_requests_total\{key="bot-a"\} (\d+)/) >= 4)
  t.ok(await metric(/chorus_key_refusals_total\{key="anonymous",status="401"\} (\d+)/) >= 6, 'the 401s above, counted')
  t.notOk(JSON.stringify(service.logs).includes(USER), 'no key in the log')
})

t.test('the OpenAI client: AuthenticationError without a valid key, audio with one', async t => {
  const stranger = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: 'sk-not-a-chorus-key-at-all', maxRetries: 0 })
  const refusal = await stranger.audio.speech.create({ model: 'tts-1', input: 'Hello.', voice: VOICE as 'alloy' }).then(() => undefined, (error: unknown) => error)
  // By name: the client's CommonJS and ESM builds each have their own class.
  t.match(refusal, { status: 401, message: /The API key is not valid/ })
  t.equal((refusal as Error).constructor.name, AuthenticationError.name)
  const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: USER, maxRetries: 0 })
  const speech = await client.audio.speech.create({ model: 'tts-1', input: 'Hello.', voice: VOICE as 'alloy', response_format: 'wav' })
  const bytes = Buffer.from(await speech.arrayBuffer())
  t.equal(bytes.subarray(0, 4).toString(), 'RIFF')
  t.ok(bytes.length > 1000, 'audio came back')
  const models = await client.models.list()
  t.ok(models.data.length > 0, 'GET /v1/models with the key')
})

t.test('requests per minute: exactly the quota, then 429 naming it with a computed Retry-After', async t => {
  const voices = async (): Promise<number> => (await request(`${service.url}/voices`, { headers: bearer(LIMITED) })).status
  t.same([await voices(), await voices(), await voices()], [200, 200, 200], 'the three of the quota')
  quotaNow += 20_000
  const refused = await request(`${service.url}/voices`, { headers: bearer(LIMITED) })
  t.equal(refused.status, 429, 'the fourth within the minute')
  t.match(refused.json, { code: 'ERR_QUOTA_EXCEEDED', quota: 'requests_per_minute', limit: 3, error: 'The key "limited" is over its quota of 3 requests per minute: retry in 40 s' })
  t.equal(refused.headers.get('retry-after'), '40', 'the first request leaves the minute 40 s later')
  t.equal(refused.json.retry_after, 40)
  t.equal(await metric(/chorus_key_refusals_total\{key="limited",status="429"\} (\d+)/), 1)
  quotaNow += 39_000
  t.equal(await voices(), 429, 'still within the minute a second before')
  quotaNow += 1000
  t.same([await voices(), await voices(), await voices()], [200, 200, 200], 'three again once the first three left the minute (refusals are not counted)')
  t.equal(await voices(), 429, 'and the fourth refused')
})

t.test('audio seconds per minute: a key over it gets 429 before any work, until its audio leaves the minute', async t => {
  t.equal((await tts(bearer(CAPPED))).status, 200, 'the first speech is admitted')
  await eventually('the audio counted for capped', async () => await metric(/chorus_key_audio_seconds_total\{key="capped"\} ([\d.e+-]+)/) > 0.5)
  const before = syntheses()
  const refused = await tts(bearer(CAPPED))
  t.equal(refused.status, 429)
  t.match(refused.json, { quota: 'audio_seconds_per_minute', error: /^The key "capped" is over its quota of 0\.5 audio seconds per minute: retry in 60 s$/ })
  t.equal(refused.headers.get('retry-after'), '60', 'its audio was counted this second: it leaves the minute in 60 s')
  t.equal(syntheses(), before, 'nothing was synthesised')
  t.equal((await request(`${service.url}/voices`, { headers: bearer(CAPPED) })).status, 200, 'other requests still pass')
  quotaNow += 60_000
  t.equal((await tts(bearer(CAPPED))).status, 200, 'admitted again a minute later')
})

t.test('concurrent streams: a held stream takes the key\'s one slot until it closes', async t => {
  const long = JSON.stringify({ text: 'Hello there. '.repeat(300), voice: VOICE, stream: true, sentence_silence: 2 })
  let held: ClientRequest | undefined
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    held = httpRequest(`${service.url}/tts`, { method: 'POST', headers: { ...bearer(SINGLE), 'Content-Type': 'application/json' } }, resolve)
    held.on('error', () => {})
    held.end(long)
    held.once('error', reject)
  })
  t.equal(response.statusCode, 200)
  response.pause()
  const quotas = service.deps.access.quotas
  t.equal(quotas.openStreams('single'), 1)
  const refused = await tts(bearer(SINGLE))
  t.equal(refused.status, 429)
  t.match(refused.json, { quota: 'concurrent_streams', limit: 1, error: /quota of 1 concurrent streams/ })
  t.match(refused.headers.get('retry-after'), /^\d+$/)
  held!.destroy()
  await eventually('the held stream to close', () => quotas.openStreams('single') === 0)
  t.equal((await tts(bearer(SINGLE))).status, 200, 'admitted again once it closed')
})

t.test('an edit of the keys file is picked up while the service runs', async t => {
  t.equal((await request(`${service.url}/voices`, { headers: bearer(NEW) })).status, 401)
  await writeFile(keysFile, JSON.stringify({ keys: { ...KEYS, [NEW]: { name: 'bot-new', weight: 2 } } }))
  await eventually('the new key to work', async () => (await request(`${service.url}/voices`, { headers: bearer(NEW) })).status === 200, 50)
  t.pass('the new key works')
  t.match(service.logs.find(line => line.msg === 'API keys reloaded'), { keys: 5 })
})

t.test('the playground: asks for a key, keeps it, and speaks with it', unless(NO_CHROMIUM), async t => {
  const browser = await launchChromium()
  t.teardown(() => browser.close())
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(`${service.url}/`)
  await page.waitForFunction('document.getElementById("status").textContent !== ""')
  t.equal(await page.locator('#status').textContent(), 'This service needs an API key: enter it above.')
  await page.getByLabel('API key').fill('sk-wrong-0123456789abcdef')
  await page.getByLabel('API key').press('Enter')
  await page.waitForFunction('document.getElementById("status").textContent.startsWith("Error 401")')
  t.equal(await page.locator('#status').textContent(), 'Error 401: The API key is not valid')
  await page.getByLabel('API key').fill(USER)
  await page.getByLabel('API key').press('Enter')
  await page.waitForSelector(`#voice option[value="${VOICE}"]`, { state: 'attached' })
  await page.getByLabel('Voice').selectOption(VOICE)
  await page.getByLabel('Format').selectOption('wav')
  await page.getByRole('button', { name: 'Speak' }).click()
  await page.waitForSelector('body[data-played="true"]', { timeout: 60_000 })
  t.match(await page.locator('#status').textContent(), 'Done.', 'it spoke with the key')

  const again = await context.newPage()
  await again.goto(`${service.url}/`)
  t.equal(await again.getByLabel('API key').inputValue(), USER, 'the key was kept in the page\'s storage')
  await again.waitForSelector(`#voice option[value="${VOICE}"]`, { state: 'attached' })
  t.pass('the voices load with the kept key')
})

t.test('the WebSocket: refused with 401 before the upgrade without a key; xi-api-key or ?api_key= opens it and it speaks', async t => {
  const path = `${service.url.replace('http://', 'ws://')}/v1/text-to-speech/${VOICE}/stream-input?output_format=pcm_16000`
  const refusal = await new Promise<{ status: number, challenge: string | undefined }>((resolve, reject) => {
    const ws = new WebSocket(path)
    ws.once('unexpected-response', (_request, response) => {
      response.resume()
      resolve({ status: response.statusCode ?? 0, challenge: response.headers['www-authenticate'] })
    })
    ws.once('open', () => reject(new Error('opened without a key')))
  })
  t.same(refusal, { status: 401, challenge: 'Bearer realm="chorus"' })
  for (const [url, headers] of [[path, { 'xi-api-key': USER }], [`${path}&api_key=${USER}`, {}]] as const) {
    const ws = new WebSocket(url, { headers })
    const replies: Array<Record<string, unknown>> = []
    ws.on('message', data => replies.push(JSON.parse(String(data))))
    const closed = new Promise<number>(resolve => ws.once('close', code => resolve(code)))
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
    for (const text of [' ', 'Hello there. ', '']) ws.send(JSON.stringify({ text }))
    t.equal(await closed, 1000, 'closed normally')
    t.ok(replies.some(m => typeof m.audio === 'string' && m.audio.length > 0), 'audio arrived')
    t.ok(replies.some(m => m.isFinal === true), 'isFinal arrived')
  }
})
