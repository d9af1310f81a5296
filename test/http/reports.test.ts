// What the service reports about requests it did not finish and voices it
// holds: a client hang-up is an info line and a 499, not an unexpected error;
// a 405 on a known path is counted under that path; "loaded" means the same
// in /voices, /health and /metrics.

import { connect } from 'node:net'
import t from 'tap'
import { eventually } from '../helpers/hang-guard.js'
import { request, startTestService, type TestService } from '../helpers/service.js'

const service = await startTestService({}, ['en_US-probe-medium', 'en_US-probeslow-medium'])
t.teardown(() => service.stop())

/** The first log line `match` accepts, logged or to come (TestService.logged). */
async function logLine (service: TestService, match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return await service.logged('a log line', match)
}

function since (mark: number): Array<Record<string, unknown>> {
  return service.logs.slice(mark)
}

async function metricsText (): Promise<string> {
  return (await request(service.url + '/metrics')).body.toString()
}

t.test('a client that hangs up while sending its body: info, not an unexpected error', async t => {
  const mark = service.logs.length
  const { port } = new URL(service.url)
  const socket = connect(Number(port), '127.0.0.1')
  await new Promise(resolve => socket.once('connect', resolve))
  const arrived = new Promise(resolve => service.server.once('request', resolve))
  socket.write('POST /tts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nX-Request-Id: hangup-body\r\n\r\n{"text": "half')
  await arrived
  socket.destroy()
  const line = await logLine(service, line => line.requestId === 'hangup-body' && line.msg === 'client closed the connection')
  t.equal(line.level, 30, 'info')
  t.equal(line.status, 499)
  t.equal(typeof line.reason, 'string')
  t.notOk(since(mark).some(entry => (entry.level as number) >= 50), 'nothing at error level')
  t.match(await metricsText(), /chorus_http_requests_total\{route="\/tts",method="POST",status="499"\} \d+/)
})

t.test('a client that hangs up during synthesis: info, and the service goes on', async t => {
  const mark = service.logs.length
  const controller = new AbortController()
  const leaving = fetch(service.url + '/tts', {
    method: 'POST',
    body: JSON.stringify({ text: 'One. Two. Three. Four. Five. Six.', voice: 'en_US-probeslow-medium' }),
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'hangup-synthesis' },
    signal: controller.signal
  })
  await logLine(service, line => line.requestId === 'hangup-synthesis' && line.msg === 'synthesis')
  controller.abort()
  await t.rejects(leaving)
  const line = await logLine(service, line => line.requestId === 'hangup-synthesis' && line.msg === 'client closed the connection')
  t.equal(line.level, 30)
  t.notOk(since(mark).some(entry => (entry.level as number) >= 50), 'nothing at error level')
  t.equal((await request(service.url + '/health')).status, 200)
})

t.test('405 on a known path is counted under that path, not as unmatched', async t => {
  t.equal((await request(service.url + '/tts')).status, 405)
  t.equal((await request(service.url + '/health', { method: 'DELETE' })).status, 405)
  t.equal((await request(service.url + '/nope')).status, 404)
  const text = await metricsText()
  t.match(text, /chorus_http_requests_total\{route="\/tts",method="GET",status="405"\} 1/)
  t.match(text, /chorus_http_requests_total\{route="\/health",method="DELETE",status="405"\} 1/)
  t.match(text, /chorus_http_requests_total\{route="unmatched",method="GET",status="404"\} 1/)
  t.notMatch(text, /route="unmatched",method="(GET|DELETE)",status="405"/)
})

t.test('"loaded" agrees across /voices, /health and chorus_loaded_voices', async t => {
  // The hang-up test above leaves the slow voice loading; compare once it settled.
  await eventually('no voice loading', async () => !(await request(service.url + '/voices')).json.details.some((voice: { state: string }) => voice.state === 'loading'))
  const health = (await request(service.url + '/health')).json
  const details: Array<{ name: string, loaded: boolean, builtin: boolean }> = (await request(service.url + '/voices')).json.details
  t.same(details.filter(voice => voice.loaded).map(voice => voice.name).sort(), health.loaded_voices)
  t.match(details.find(voice => voice.builtin), { name: 'en_US-espeak-low', loaded: false }, 'the built-in voice has no worker pool')
  const gauge = /^chorus_loaded_voices (\d+)$/m.exec(await metricsText())
  t.equal(Number(gauge?.[1]), health.loaded_voices.length)
})
