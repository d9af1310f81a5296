// CSRF and CORS: a web page from another origin cannot make the service
// speak (not even with a "simple" no-cors POST, which needs no preflight),
// an origin on TTS_ALLOWED_ORIGINS gets proper preflight and CORS answers,
// the playground (same origin) works, and clients that are not browsers keep
// the origin contract: a POST without Content-Type is still served.

import { createServer, get, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { launchChromium, NO_CHROMIUM } from '../helpers/chromium.js'
import { eventually } from '../helpers/hang-guard.js'
import { request, startTestService } from '../helpers/service.js'
import { unless } from '../helpers/test-tools.js'

const FRIEND = 'http://friend.example:8080'
const service = await startTestService({ TTS_ALLOWED_ORIGINS: FRIEND })
t.teardown(() => service.stop())
const JSON_BODY = JSON.stringify({ text: 'Hello there.', voice: 'en_US-espeak-low' })

/** Whether a synthesis started since the log had `from` lines. */
const synthesesSince = (from: number): number => service.logs.slice(from).filter(line => line.msg === 'synthesis').length

t.test('clients that are not browsers: served as always, even without Content-Type', async t => {
  // A byte body, unlike a string, gets no Content-Type from fetch.
  const reply = await request(`${service.url}/tts`, { method: 'POST', body: Buffer.from(JSON_BODY) })
  t.equal(reply.status, 200)
  t.equal(reply.headers.get('access-control-allow-origin'), null, 'no CORS headers for a non-browser client')
})

t.test('a foreign origin is refused before any work, however it asks', async t => {
  const from = service.logs.length
  const cases: Array<[string, Record<string, string>]> = [
    ['a no-cors POST without Content-Type', { Origin: 'http://evil.example' }],
    ['a form POST', { Origin: 'http://evil.example', 'Content-Type': 'text/plain' }],
    ['Origin "null" (a sandboxed frame)', { Origin: 'null' }],
    ['only Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors' }],
    ['another port on the same host (same-site)', { Origin: `http://127.0.0.1:${Number(new URL(service.url).port) + 1}` }]
  ]
  for (const [name, headers] of cases) {
    const reply = await request(`${service.url}/tts`, { method: 'POST', body: JSON_BODY, headers })
    t.equal(reply.status, 403, name)
    t.equal(reply.json?.code, 'ERR_ORIGIN_NOT_ALLOWED', name)
    t.match(reply.json?.error, /^Requests from (the web page at \S+|a web page on another site) are not allowed: add its origin to TTS_ALLOWED_ORIGINS/, name)
    t.equal(reply.headers.get('access-control-allow-origin'), null, `${name}: no CORS grant`)
  }
  const preflight = await request(`${service.url}/tts`, { method: 'OPTIONS', headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' } })
  t.equal(preflight.status, 403, 'a foreign preflight is refused')
  t.equal(synthesesSince(from), 0, 'nothing was synthesised')
})

t.test('an allowed origin: preflight, then a readable answer', async t => {
  const preflight = await request(`${service.url}/tts`, {
    method: 'OPTIONS',
    headers: { Origin: FRIEND, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, authorization' }
  })
  t.equal(preflight.status, 204)
  t.equal(preflight.headers.get('access-control-allow-origin'), FRIEND)
  t.match(preflight.headers.get('access-control-allow-methods'), /POST/)
  t.match(preflight.headers.get('access-control-allow-headers'), /Content-Type/)
  t.match(preflight.headers.get('access-control-allow-headers'), /Authorization/)
  t.match(preflight.headers.get('vary'), /Origin/)
  const reply = await request(`${service.url}/tts`, { method: 'POST', body: JSON_BODY, headers: { Origin: FRIEND, 'Content-Type': 'application/json' } })
  t.equal(reply.status, 200)
  t.equal(reply.headers.get('access-control-allow-origin'), FRIEND)
  t.match(reply.headers.get('access-control-expose-headers'), /X-Chorus-Voice/)
  const bad = await request(`${service.url}/tts`, { method: 'POST', body: '{}', headers: { Origin: FRIEND, 'Content-Type': 'application/json' } })
  t.equal(bad.status, 400)
  t.equal(bad.headers.get('access-control-allow-origin'), FRIEND, 'the page can read the error too')
})

t.test('following a link to the service from another site is a navigation, not work', async t => {
  // Raw HTTP: fetch would set Sec-Fetch-Mode itself.
  const status = await new Promise<number | undefined>((resolve, reject) => {
    get(`${service.url}/`, { headers: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate' } }, response => {
      response.resume()
      resolve(response.statusCode)
    }).on('error', reject)
  })
  t.equal(status, 200)
})

t.test('in Chromium: a foreign page cannot trigger synthesis; the playground still speaks', unless(NO_CHROMIUM), async t => {
  // The foreign page is served from localhost, the service from 127.0.0.1: another site.
  const page = `<!doctype html><script>
    fetch(${JSON.stringify(`${service.url}/tts`)}, { method: 'POST', mode: 'no-cors', body: new Blob([${JSON.stringify(JSON_BODY)}]) })
      .then(() => { document.title = 'sent' }, () => { document.title = 'failed' })
  </script>`
  const foreign: Server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html' })
    response.end(page)
  })
  await new Promise<void>(resolve => foreign.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>(resolve => foreign.close(() => resolve())))
  const browser = await launchChromium()
  t.teardown(() => browser.close())

  const from = service.logs.length
  const tab = await browser.newPage()
  await tab.goto(`http://localhost:${(foreign.address() as AddressInfo).port}/`)
  await tab.waitForFunction('document.title !== ""')
  // The refusal is logged when it is answered: wait for it (bounded), then check nothing was spoken.
  await eventually('the foreign request to be answered', () => service.logs.slice(from).some(line => line.code === 'ERR_ORIGIN_NOT_ALLOWED'), 100)
  t.pass('the foreign request reached the service and was refused')
  t.equal(synthesesSince(from), 0, 'nothing was synthesised')

  const playground = await browser.newPage()
  await playground.goto(`${service.url}/`)
  await playground.getByLabel('Voice').selectOption('en_US-espeak-low')
  await playground.getByLabel('Format').selectOption('wav')
  await playground.getByRole('button', { name: 'Speak' }).click()
  await playground.waitForSelector('body[data-played="true"]', { timeout: 60_000 })
  t.match(await playground.locator('#status').textContent(), 'Done.', 'the playground, on the service\'s own origin, speaks')
})
