// Without API keys (issue 43, named by admission): each client connection
// is its own tenant for the scheduler's fair shares, so one client's long
// answer does not hold another's short one behind it, while metrics and
// the scheduler's counters keep one "anonymous" series however many
// connections come and go.

import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http'
import t from 'tap'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, request, startTestService } from '../helpers/service.js'

const VOICE = 'en_US-probeslow-medium'
// One inference at a time and one worker: every task waits its turn in the schedule.
const service = await startTestService({ TTS_MAX_CONCURRENT_INFERENCES: '1', TTS_WORKERS_PER_VOICE: '1' }, [VOICE])
t.teardown(() => service.stop())

const LONG = Array.from({ length: 60 }, (_, i) => `Sentence number ${i + 1}.`).join(' ')

/** A whole answer on a connection of its own; resolves with its status once it has ended. */
function longAnswer (): { request: ClientRequest, ended: Promise<number> } {
  let req: ClientRequest | undefined
  const ended = new Promise<number>((resolve, reject) => {
    req = httpRequest(`${service.url}/tts`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (response: IncomingMessage) => {
      response.resume()
      response.once('end', () => resolve(response.statusCode ?? 0))
      response.once('error', () => resolve(0))
    })
    req.once('error', reject)
    req.end(JSON.stringify({ text: LONG, voice: VOICE }))
  })
  return { request: req as ClientRequest, ended }
}

t.test('a short answer on another connection is not held behind a long one', async t => {
  const granted = (): number => service.deps.pools.gate.counts.granted.get('anonymous') ?? 0
  const before = granted()
  const long = longAnswer()
  let longDone = false
  void long.ended.then(() => { longDone = true }, () => { longDone = true })
  // The long answer's sentences are all queued and its first ones have run.
  await eventually('the long answer to be under way', () => granted() >= before + 2)
  const short = await postTts(service.url, { text: 'Hello.', voice: VOICE })
  t.equal(short.status, 200)
  t.notOk(longDone, 'the short answer came first: its connection had its own share')
  long.request.on('error', () => {})
  long.request.destroy()
  await eventually('the long answer\'s work to stop', () => service.deps.speech.pending === 0)
})

t.test('one "anonymous" series however many connections: grants, requests, audio', async t => {
  for (let i = 0; i < 5; i++) t.equal((await postTts(service.url, { text: 'Hi.', voice: VOICE })).status, 200)
  t.same([...service.deps.pools.gate.counts.granted.keys()], ['anonymous'], 'the scheduler counts every connection as anonymous')
  const exposition = (await request(`${service.url}/metrics`)).body.toString()
  t.same([...exposition.matchAll(/chorus_key_requests_total\{key="([^"]*)"\}/g)].map(match => match[1]), ['anonymous'])
  t.same([...exposition.matchAll(/chorus_key_audio_seconds_total\{key="([^"]*)"\}/g)].map(match => match[1]), ['anonymous'])
})
