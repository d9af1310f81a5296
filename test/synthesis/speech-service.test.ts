// The speech service under a reader who does not read: synthesis pauses
// (sentences are started only a window ahead, chunks only up to the byte
// bound), the request stays admitted until its last chunk is read, a reader
// who leaves stops the work, and the request's time covers the stall.
// Judged by counters and event order, on a real service's pools.

import { once } from 'node:events'
import t from 'tap'
import type { SpeechRequest } from '../../src/synthesis/speech-service.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { localAdmission } from '../../src/synthesis/speech-admission.js'

const WINDOW = 2
const service = await startTestService({ TTS_RESPONSE_BUFFER_BYTES: '1024', TTS_SENTENCE_WINDOW: String(WINDOW), TTS_WORKERS_PER_VOICE: '1' }, ['en_US-probe-medium'])
t.teardown(() => service.stop())
const speech = service.deps.speech
const SENTENCES = 60
const TEXT = Array.from({ length: SENTENCES }, (_, i) => `Sentence number ${i + 1}.`).join(' ')

function asked (text = TEXT): SpeechRequest {
  return { request: { text, voice: 'en_US-probe-medium', stream: true }, format: 'wav', stream: true, log: service.deps.log, admission: localAdmission() }
}

/** Resolves once the service holds at most `left` requests. */
async function settled (running: TestService, left = 0): Promise<void> {
  while (running.deps.speech.pending > left) await new Promise(resolve => setImmediate(resolve))
}

t.test('a reader who stops reading pauses its synthesis; the request stays admitted until its last chunk', async t => {
  const stalled = await speech.open(asked())
  t.equal((await stalled.chunks.next()).done, false, 'the header')
  // The same text, read to its end. The pool runs the stalled request's
  // tasks first (it is older), so had it not paused, it would be done by now.
  const other = await speech.open(asked())
  let otherChunks = 0
  for await (const chunk of other.chunks) if (chunk.kind === 'audio') otherChunks++
  const { sentencesStarted, chunksMade } = stalled.progress
  t.ok(chunksMade < otherChunks / 2, `${chunksMade} of ${otherChunks} chunks made: synthesis paused at the byte bound`)
  // A chunk a sentence here, after the header: the window is what runs ahead of the chunks made.
  t.ok(sentencesStarted <= chunksMade + WINDOW, `${sentencesStarted} of ${SENTENCES} sentences started: no more than the window ahead`)
  await settled(service, 1)
  t.equal(speech.pending, 1, 'the stalled request still counts against TTS_MAX_PENDING')

  let read = 1
  for await (const chunk of stalled.chunks) if (chunk.kind === 'audio') read++
  t.equal(read, otherChunks, 'every chunk arrives once the reader reads')
  t.equal(stalled.progress.sentencesStarted, SENTENCES)
  await settled(service)
  t.equal(speech.buffered.bytes, 0, 'nothing left counted against TTS_BUFFER_BYTES')
  t.notOk(stalled.signal.aborted, 'a speech read to its end did not stop early')
})

t.test('a reader who leaves stops the work and the admission', async t => {
  const leaving = await speech.open(asked())
  await leaving.chunks.next()
  await leaving.chunks.return?.()
  t.ok(leaving.signal.aborted, 'the work was stopped')
  await settled(service)
  const started = leaving.progress.sentencesStarted
  t.ok(started < SENTENCES, `${started} of ${SENTENCES} sentences started`)
})

t.test('the request\'s time covers a stalled reader', async t => {
  const quick = await startTestService({ TTS_TIMEOUT_SECONDS: '1', TTS_RESPONSE_BUFFER_BYTES: '1024', TTS_SENTENCE_WINDOW: '1', TTS_WORKERS_PER_VOICE: '1' }, ['en_US-probe-medium'])
  t.teardown(() => quick.stop())
  const stalled = await quick.deps.speech.open({ ...asked(), log: quick.deps.log })
  await stalled.chunks.next()
  t.equal(quick.deps.speech.pending, 1)
  await once(stalled.signal, 'abort')
  t.equal(stalled.signal.reason.code, 'ERR_TIMEOUT', 'stopped by the request\'s time, not left hanging')
  await settled(quick)
  t.equal(quick.deps.speech.buffered.bytes, 0)
  // What was made before the stop is still there; then the timeout.
  await t.rejects((async () => { for await (const _ of stalled.chunks); })(), { code: 'ERR_TIMEOUT' })
})
