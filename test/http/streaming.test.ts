// Streaming: the header goes out at once with an open-ended length, then each
// sentence in order; the bytes equal the non-streamed answer's.

import { request as httpRequest } from 'node:http'
import t from 'tap'
import { UNKNOWN_LENGTH } from '../../src/engine/index.js'
import { postTts, startTestService } from '../helpers/service.js'

const service = await startTestService({ TTS_DEFAULT_VOICE: 'en_US-probeslow-medium', TTS_WORKERS_PER_VOICE: '2' })
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

t.test('the header arrives at once and sentences as they are ready', async t => {
  // probeslow: about 0.8 s a sentence; 2 workers, 6 sentences.
  const body = JSON.stringify({ text: 'One. Two. Three. Four. Five. Six.', stream: true })
  const arrivals: Array<{ ms: number, bytes: number }> = []
  const started = performance.now()
  await new Promise<void>((resolve, reject) => {
    const req = httpRequest(service.url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      res.on('data', (chunk: Buffer) => arrivals.push({ ms: performance.now() - started, bytes: chunk.length }))
      res.on('end', resolve)
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
  const total = arrivals.at(-1)?.ms ?? 0
  t.equal(arrivals[0].bytes, 44, 'the first chunk is the header alone')
  t.ok(arrivals[0].ms < arrivals[1].ms / 2, `header after ${arrivals[0].ms.toFixed(0)} ms, long before the first sentence`)
  t.ok(arrivals.length >= 7, `${arrivals.length} chunks: header and six sentences`)
  t.ok(arrivals[1].ms < total * 0.6, `first sentence at ${arrivals[1].ms.toFixed(0)} ms of ${total.toFixed(0)} ms`)
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
  const quick = await startTestService({ TTS_DEFAULT_VOICE: 'en_US-probeslow-medium', TTS_TIMEOUT_SECONDS: '1', TTS_WORKERS_PER_VOICE: '1' }, ['en_US-probeslow-medium'])
  t.teardown(() => quick.stop())
  const text = 'One. Two. Three. Four.'
  // The whole answer, from the service whose timeout is the default minute.
  const whole = await postTts(service.url, { text, voice: 'en_US-probeslow-medium' })
  t.equal(whole.status, 200)
  const cut = await rawStream(quick.url, { text, stream: true })
  // The status went out with the header, before the timeout.
  t.equal(cut.status, 200)
  t.equal(cut.head.readUInt32LE(40), UNKNOWN_LENGTH, 'the streamed header came first')
  t.equal(cut.complete, false, 'the chunked body has no last chunk: a client can tell it from a short answer')
  t.ok(cut.bytes < whole.body.length, `${cut.bytes} of ${whole.body.length} bytes: not every sentence arrived`)
  t.ok(quick.logs.some(line => line.msg === 'streaming synthesis stopped'))
})
