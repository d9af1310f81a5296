// A client that stops reading: its synthesis waits for it (the audio is not
// piled up in memory), its request stays counted in chorus_pending_requests
// until its last byte, and the request's time (TTS_TIMEOUT_SECONDS) ends the
// stalled response, cut, so the client can tell it from a complete answer.

import { request as httpRequest, type IncomingMessage } from 'node:http'
import t from 'tap'
import { request, startTestService } from '../helpers/service.js'

const service = await startTestService({ TTS_TIMEOUT_SECONDS: '2', TTS_RESPONSE_BUFFER_BYTES: '65536' }, ['en_US-probe-medium'])
t.teardown(() => service.stop())

// 100 sentences with 5 s between them: far more audio (about 20 MB) than the
// socket buffers hold, made by a voice that needs no load.
const BODY = { text: Array.from({ length: 100 }, () => 'Go.').join(' '), sentence_silence: 5, voice: 'en_US-espeak-low', stream: true }

async function pendingRequests (): Promise<number> {
  return (await request(service.url + '/health')).json.pending_requests
}

t.test('a stalled client holds its synthesis, counts as pending, and its time ends the response', async t => {
  const reply = await new Promise<{ res: IncomingMessage, first: number }>((resolve, reject) => {
    const req = httpRequest(service.url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      res.once('data', (chunk: Buffer) => {
        // Reads nothing more.
        res.pause()
        resolve({ res, first: chunk.length })
      })
    })
    req.on('error', reject)
    req.end(JSON.stringify(BODY))
  })
  t.equal(reply.res.statusCode, 200)
  t.equal(await pendingRequests(), 1, 'counted while its bytes wait for the client')
  // The service ends the response at the request's time; a client that does
  // not read cannot see that until it reads again.
  let stop: Record<string, unknown> | undefined
  while ((stop = service.logs.find(line => line.msg === 'streaming synthesis stopped')) === undefined) await new Promise(resolve => setTimeout(resolve, 20))
  t.equal(stop.code, 'ERR_TIMEOUT', 'ended by the request\'s time')
  t.equal(stop.level, 40)
  t.equal(stop.err, undefined, 'an expected stop is logged without a stack')
  const closed = new Promise<void>(resolve => reply.res.once('close', resolve))
  reply.res.on('error', () => {})
  reply.res.resume()
  await closed
  t.equal(reply.res.complete, false, 'cut: the chunked body has no last chunk')
  while (await pendingRequests() > 0) await new Promise(resolve => setTimeout(resolve, 20))
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
