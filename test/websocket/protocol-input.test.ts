// Bad input on Cartesia's and Deepgram's sockets is refused at the edge,
// naming the field, what was expected and what arrived: a bad query before
// the upgrade (HTTP 400 with the JSON body), a bad message as the protocol's
// own error message, the socket kept open for the next.

import t from 'tap'
import WebSocket from 'ws'
import { startTestService } from '../helpers/service.js'

const service = await startTestService({}, ['en_US-probe-medium'])
t.teardown(async () => await service.stop())
const base = service.url.replace('http://', 'ws://')

async function refusedUpgrade (path: string): Promise<{ status: number, body: unknown }> {
  const ws = new WebSocket(`${base}${path}`)
  return await new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_request, response) => {
      let text = ''
      response.on('data', (chunk: Buffer) => { text += String(chunk) })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }))
    })
    ws.once('open', () => reject(new Error('upgraded')))
  })
}

async function replies (path: string, messages: unknown[], count: number): Promise<Array<Record<string, unknown>>> {
  const ws = new WebSocket(`${base}${path}`)
  const got: Array<Record<string, unknown>> = []
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) got.push(JSON.parse(String(data)) as Record<string, unknown>)
      if (got.length === count) resolve()
    })
    ws.once('open', () => { for (const m of messages) ws.send(typeof m === 'string' ? m : JSON.stringify(m)) })
    ws.once('error', reject)
  })
  ws.close()
  return got
}

t.test('Deepgram: a bad query is a 400 before the upgrade; a bad message a Warning', async t => {
  t.match(await refusedUpgrade('/v1/speak?encoding=opus'), { status: 400, body: { code: 'ERR_INVALID_ARGUMENT', error: 'Expected one of linear16, mulaw, alaw for encoding but received "opus" (string)' } })
  t.match(await refusedUpgrade('/v1/speak?encoding=mulaw&sample_rate=24000'), { status: 400, body: { error: 'Expected one of 8000, 16000 for mulaw for sample_rate but received "24000" (string)' } })
  const got = await replies('/v1/speak', [{ type: 'Shout', text: 'hi' }, { type: 'Speak', text: 3 }, 'not json'], 4)
  t.match(got[0], { type: 'Metadata' })
  t.match(got.slice(1), [
    { type: 'Warning', code: 'ERR_INVALID_ARGUMENT', description: 'Expected one of Speak, Flush, Clear, Close for type but received "Shout" (string)' },
    { type: 'Warning', description: 'Expected a string for text but received 3 (number)' },
    { type: 'Warning', description: /^Expected a JSON object for the message but received text that is not JSON/ }
  ])
})

t.test('Cartesia: a bad message is an error message for its context', async t => {
  const voice = { mode: 'id', id: 'en_US-probe-medium' }
  const got = await replies('/tts/websocket', [
    { context_id: 'a', voice, transcript: 'Hi.', output_format: { container: 'raw', encoding: 'pcm_s24le', sample_rate: 24000 } },
    { context_id: 'b', transcript: 'Hi.', output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24000 } },
    { context_id: 'c', voice: { mode: 'embedding', embedding: [0.1] }, transcript: 'Hi.' },
    { transcript: 'Hi.' }
  ], 4)
  t.match(got, [
    { type: 'error', context_id: 'a', status_code: 400, done: true, error: 'Expected one of pcm_s16le, pcm_f32le, pcm_mulaw, pcm_alaw for output_format.encoding but received "pcm_s24le" (string)' },
    { type: 'error', context_id: 'b', status_code: 400, error: /^Expected \{"mode": "id", "id": <voice>\} on a context's first message for voice but received/ },
    { type: 'error', context_id: 'c', status_code: 400, error: /^Expected \{"mode": "id", "id": <voice>\} \(embeddings are not supported\) for voice/ },
    { type: 'error', status_code: 400, error: 'Expected a string of 1 to 128 characters for context_id but received undefined (undefined)' }
  ])
})
