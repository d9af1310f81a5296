// A client that stops reading: its synthesis waits for it (the audio is not
// piled up in memory; shown by a later request of the same text finishing
// first on the same single worker), its request stays counted in
// chorus_pending_requests until its last byte, every byte arrives once it
// reads again, and the request's time (TTS_TIMEOUT_SECONDS) ends a stalled
// response, cut, so the client can tell it from a complete answer.

import { once } from 'node:events'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import t, { type Test } from 'tap'
import type { Speech, SpeechRequest } from '../../src/synthesis/speech-service.js'
import { eventually } from '../helpers/hang-guard.js'
import { request, startTestService, type TestService } from '../helpers/service.js'

// 100 sentences with 5 s of silence after each: some 22 MB of audio, far
// more than the socket buffers (a few MB at most here) and the response's
// buffer (TTS_RESPONSE_BUFFER_BYTES) hold together.
const SENTENCES = 100
const TEXT = Array.from({ length: SENTENCES }, () => 'Go.').join(' ')

async function pendingRequests (service: TestService): Promise<number> {
  return (await request(service.url + '/health')).json.pending_requests
}

/** Records every speech the service opens, in order (the service's own
 * objects: their progress counters are what the test reads). */
function watchSpeeches (test: Test, service: TestService): Speech[] {
  const speech = service.deps.speech
  const open = speech.open
  const opened: Speech[] = []
  speech.open = async (asked: SpeechRequest): Promise<Speech> => {
    const started = await open.call(speech, asked)
    opened.push(started)
    return started
  }
  test.teardown(() => { speech.open = open })
  return opened
}

/** POST /tts streamed; resolves with the response once its first chunk came, then reads nothing more. */
async function stalledRequest (url: string, body: object): Promise<{ res: IncomingMessage, first: Buffer }> {
  return await new Promise((resolve, reject) => {
    const req = httpRequest(url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      res.once('data', (chunk: Buffer) => {
        res.pause()
        resolve({ res, first: chunk })
      })
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

// One worker: the pool's order of work is the order of asking.
const service = await startTestService({ TTS_RESPONSE_BUFFER_BYTES: '65536', TTS_WORKERS_PER_VOICE: '1' }, ['en_US-probe-medium'])
t.teardown(() => service.stop())

t.test('a stalled client holds its synthesis and counts as pending; once it reads, every byte arrives', async t => {
  const speeches = watchSpeeches(t, service)
  const body = { text: TEXT, sentence_silence: 5, voice: 'en_US-probe-medium', noise_scale: 0, noise_w: 0, stream: true }
  const stalled = await stalledRequest(service.url, body)
  t.equal(stalled.res.statusCode, 200)
  const [speech] = speeches
  let produced = false
  void speech.produced.then(() => { produced = true })

  // The same text, read to its end, asked for later. The one worker takes
  // the older request's sentences first: had the stalled one not waited for
  // its reader, all its sentences would have run before these.
  const later = await request(service.url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  t.equal(later.status, 200)
  const started = speech.progress.sentencesStarted
  t.ok(started < SENTENCES / 2, `${started} of ${SENTENCES} sentences started while its client read nothing`)
  t.equal(produced, false, 'its audio is not all made')
  await eventually('the later request to be released', async () => await pendingRequests(service) === 1)
  t.equal(await pendingRequests(service), 1, 'counted while its bytes wait for the client')

  const rest: Buffer[] = [stalled.first]
  stalled.res.on('data', (chunk: Buffer) => rest.push(chunk))
  stalled.res.resume()
  await once(stalled.res, 'end')
  t.equal(stalled.res.complete, true, 'the whole chunked body')
  t.ok(Buffer.concat(rest).equals(later.body), 'the same bytes as the request that was read at once')
  t.equal(speech.progress.sentencesStarted, SENTENCES, 'every sentence ran once the client read')
  await eventually('the request to be released', async () => await pendingRequests(service) === 0)
  t.equal(service.deps.speech.buffered.bytes, 0, 'nothing left in the response buffers')
})

t.test('the request\'s time ends a stalled response, cut; nothing stays buffered', async t => {
  const service = await startTestService({ TTS_TIMEOUT_SECONDS: '2', TTS_RESPONSE_BUFFER_BYTES: '65536' }, ['en_US-probe-medium'])
  t.teardown(() => service.stop())
  // The built-in voice needs no load, so the 2 s are the stall's.
  const stalled = await stalledRequest(service.url, { text: TEXT, sentence_silence: 5, voice: 'en_US-espeak-low', stream: true })
  t.equal(stalled.res.statusCode, 200)
  // The service ends the response at the request's time; a client that does
  // not read cannot see that until it reads again.
  const stop = await service.logged('the streaming stop', line => line.msg === 'streaming synthesis stopped')
  t.equal(stop.code, 'ERR_TIMEOUT', 'ended by the request\'s time')
  t.equal(stop.level, 40)
  t.equal(stop.err, undefined, 'an expected stop is logged without a stack')
  // A cut body is also an 'error' (aborted): expected here, judged by `complete`.
  stalled.res.on('error', () => {})
  const closed = new Promise(resolve => stalled.res.once('close', resolve))
  stalled.res.resume()
  await closed
  t.equal(stalled.res.complete, false, 'cut: the chunked body has no last chunk')
  await eventually('the request to be released', async () => await pendingRequests(service) === 0)
  t.equal(service.deps.speech.buffered.bytes, 0, 'nothing left in the response buffers')
  t.match((await request(service.url + '/metrics')).body.toString(), /chorus_buffered_response_bytes 0/)
})

t.test('a client that reads slowly gets every byte', async t => {
  const body = { text: 'One. Two. Three.', sentence_silence: 1, voice: 'en_US-probe-medium', noise_scale: 0, noise_w: 0, stream: true }
  const fast = await request(service.url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  const slow = await new Promise<Buffer>((resolve, reject) => {
    const req = httpRequest(service.url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      const chunks: Buffer[] = []
      // Pauses after every chunk and resumes on the next turn of the loop.
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk)
        res.pause()
        setImmediate(() => res.resume())
      })
      res.on('end', () => resolve(Buffer.concat(chunks)))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
  t.equal(fast.status, 200)
  t.equal(slow.length, fast.body.length)
  t.ok(slow.equals(fast.body), 'the same bytes as a fast reader')
})
