// Streaming: the header goes out before any sentence runs, with an
// open-ended length, then each sentence in order as it is made (shown by
// stepping the inference gate); the bytes equal the non-streamed answer's.

import { request as httpRequest } from 'node:http'
import t from 'tap'
import { UNKNOWN_LENGTH } from '../../src/engine/index.js'
import { eventually } from '../helpers/hang-guard.js'
import { HANG_GUARD_MS, holdSlots, postTts, startTestService } from '../helpers/service.js'

// One inference slot: the arrival test steps it one grant at a time.
const service = await startTestService({ TTS_WORKERS_PER_VOICE: '2', TTS_MAX_CONCURRENT_INFERENCES: '1' }, ['en_US-probe-medium', 'en_GB-probemulti-medium'])
t.teardown(() => service.stop())

t.test('streamed PCM is byte-exact with the non-streamed answer', async t => {
  for (const voice of ['en_US-probe-medium', 'en_GB-probemulti-medium']) {
    const body = { text: 'First one. Second, longer sentence! Third? Fourth.', voice, noise_scale: 0, noise_w: 0, sentence_silence: 0.1, speaker: 0 }
    const whole = await postTts(service.url, body)
    const streamed = await postTts(service.url, { ...body, stream: true })
    const byQuery = await postTts(service.url, body, '/tts?stream=1')
    t.equal(whole.status, 200)
    t.equal(streamed.status, 200)
    t.equal(streamed.headers.get('content-length'), null, 'no Content-Length: chunked')
    t.equal(streamed.headers.get('transfer-encoding'), 'chunked')
    t.equal(streamed.body.readUInt32LE(4), UNKNOWN_LENGTH, 'RIFF size open-ended')
    t.equal(streamed.body.readUInt32LE(40), UNKNOWN_LENGTH, 'data size open-ended')
    t.same(streamed.body.subarray(0, 4), whole.body.subarray(0, 4))
    t.same(streamed.body.subarray(8, 40), whole.body.subarray(8, 40), 'the same format fields')
    t.ok(streamed.body.subarray(44).equals(whole.body.subarray(44)), `${voice}: identical PCM`)
    t.ok(byQuery.body.equals(streamed.body), '?stream=1 streams too')
  }
})

t.test('the header goes out before any sentence runs, and each sentence\'s audio before the next sentence runs', async t => {
  // The test steps the inference gate: paused (drain), then let go for one
  // grant at a time (one slot: TTS_MAX_CONCURRENT_INFERENCES=1, and a probe
  // sentence is one inference). Whatever arrives while it is paused was sent
  // before the sentences still waiting had run. (How soon, in milliseconds,
  // is test/leak/service-timing.leak.ts's.)
  const gate = service.deps.pools.gate
  t.equal(gate.limit, 1)
  t.equal(await gate.drain(HANG_GUARD_MS), true, 'nothing running')
  t.teardown(() => gate.resume())
  const granted = gate.granted
  const sentences = 6
  let received = 0
  const arrivals: number[] = []
  const ended = new Promise<void>((resolve, reject) => {
    const req = httpRequest(service.url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      res.on('data', (chunk: Buffer) => { received += chunk.length })
      res.on('end', resolve)
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(JSON.stringify({ text: 'One. Two. Three. Four. Five. Six.', voice: 'en_US-probe-medium', stream: true }))
  })
  await eventually('the header', () => received > 0)
  t.equal(received, 44, 'the header alone')
  t.equal(gate.granted, granted, 'before any sentence ran')
  for (let sentence = 1; sentence <= sentences; sentence++) {
    const before = received
    gate.resume()
    const ran = gate.drain(HANG_GUARD_MS)
    await eventually(`sentence ${sentence}'s audio`, () => received > before)
    arrivals.push(gate.granted - granted)
    t.equal(await ran, true)
  }
  t.same(arrivals, [1, 2, 3, 4, 5, 6], 'each sentence\'s audio arrived with only the sentences before it run')
  gate.resume()
  await ended
})

/** A raw exchange that reports whether the body ended cleanly (last chunk) or was cut. */
async function rawStream (url: string, body: unknown): Promise<{ status: number, head: Buffer, bytes: number, complete: boolean }> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest(url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      // A cut stream also emits 'error' (aborted): expected here, judged by `complete`.
      res.on('error', () => {})
      res.on('close', () => {
        const all = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, head: all.subarray(0, 44), bytes: all.length, complete: res.complete })
      })
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

t.test('a streaming request that times out ends the stream early, visibly cut', async t => {
  const voice = 'en_US-probe-medium'
  const quick = await startTestService({ TTS_TIMEOUT_SECONDS: '1', TTS_WORKERS_PER_VOICE: '1' }, [voice])
  t.teardown(() => quick.stop())
  const text = 'One. Two. Three. Four.'
  // The whole answer, from the service whose timeout is the longest.
  const whole = await postTts(service.url, { text, voice })
  t.equal(whole.status, 200)
  // Every slot of the quick service held by the test: no sentence can run
  // before the timeout however fast the voice (no slow voice burns the CPU).
  const release = await holdSlots(quick)
  t.teardown(release)
  const cut = await rawStream(quick.url, { text, voice, stream: true })
  release()
  // The status went out with the header, before the timeout.
  t.equal(cut.status, 200)
  t.equal(cut.head.readUInt32LE(40), UNKNOWN_LENGTH, 'the streamed header came first')
  t.equal(cut.complete, false, 'the chunked body has no last chunk: a client can tell it from a short answer')
  t.ok(cut.bytes < whole.body.length, `${cut.bytes} of ${whole.body.length} bytes: not every sentence arrived`)
  t.ok(quick.logs.some(line => line.msg === 'streaming synthesis stopped'))
})
