import t from 'tap'
import { parseWav } from '../../src/engine/index.js'
import { probeLength, readProbeOutput } from '../../scripts/lib/probe-model.js'
import { postTts, request, startTestService } from '../helpers/service.js'

const service = await startTestService()
t.teardown(() => service.stop())
const base = service.url
const ALL = ['en_GB-probemulti-medium', 'en_US-espeak-low', 'en_US-probe-medium', 'en_US-probeslow-medium']

t.test('GET /health', async t => {
  const reply = await request(base + '/health')
  t.equal(reply.status, 200)
  t.match(reply.headers.get('content-type'), /^application\/json/)
  t.match(reply.json, { status: 'ok', default_voice: 'en_US-probe-medium', voices: ALL, default_voice_installed: true })
  t.same(reply.json.voices, ALL, 'sorted, built-in voice included')
})

t.test('GET /voices', async t => {
  const reply = await request(base + '/voices')
  t.equal(reply.status, 200)
  t.same(reply.json.voices, ALL)
  t.equal(reply.json.default_voice, 'en_US-probe-medium')
  t.same(reply.json.details.map((v: { name: string }) => v.name), ALL)
  const multi = reply.json.details.find((v: { name: string }) => v.name === 'en_GB-probemulti-medium')
  t.match(multi, { language: 'en', quality: 'medium', sample_rate: 22050, num_speakers: 109, builtin: false })
  t.equal(multi.speakers.length, 109)
  const probe = reply.json.details.find((v: { name: string }) => v.name === 'en_US-probe-medium')
  t.equal(probe.loaded, true, 'the default voice loads at start-up')
  t.ok(probe.memory_bytes > 0, 'memory per loaded voice is reported')
  t.match(reply.json.details.find((v: { name: string }) => v.name === 'en_US-espeak-low'), { builtin: true, num_speakers: 1, sample_rate: 22050 })
})

t.test('POST /tts answers a WAV with exact Content-Length, and /v1/tts the same bytes', async t => {
  const body = { text: 'Hello, how can I help you today?', noise_scale: 0.5 }
  const a = await postTts(base, body)
  const b = await postTts(base, body, '/v1/tts')
  t.equal(a.status, 200)
  t.equal(a.headers.get('content-type'), 'audio/wav')
  t.equal(Number(a.headers.get('content-length')), a.body.length)
  t.same(a.body, b.body, '/v1/tts is identical')
  const wav = parseWav(a.body)
  t.match(wav, { sampleRate: 22050, channels: 1, bitsPerSample: 16, dataOffset: 44 })
  const pcm = new Int16Array(a.body.buffer.slice(a.body.byteOffset + 44, a.body.byteOffset + a.body.length))
  const reading = readProbeOutput(Array.from(pcm, s => s / 32767), false)
  t.equal(pcm.length, probeLength(reading.length, false))
  t.equal(reading.ids[0], 1, 'BOS first')
})

t.test('X-Request-Id is echoed, or generated', async t => {
  const echoed = await request(base + '/health', { headers: { 'X-Request-Id': 'bot-42.req:7' } })
  t.equal(echoed.headers.get('x-request-id'), 'bot-42.req:7')
  const generated = await request(base + '/health', { headers: { 'X-Request-Id': 'no spaces allowed' } })
  t.match(generated.headers.get('x-request-id'), /^[0-9a-f-]{36}$/)
})

t.test('unknown paths 404, wrong methods 405 with Allow', async t => {
  const missing = await request(base + '/nope')
  t.equal(missing.status, 404)
  t.same(missing.json, { error: 'Not found', code: 'ERR_NOT_FOUND' })
  const wrong = await request(base + '/tts')
  t.equal(wrong.status, 405)
  t.equal(wrong.headers.get('allow'), 'POST')
  t.match(wrong.json, { error: /not allowed/, code: 'ERR_METHOD_NOT_ALLOWED' })
  const wrongHealth = await request(base + '/health', { method: 'DELETE' })
  t.equal(wrongHealth.status, 405)
  t.match(wrongHealth.headers.get('allow'), /GET/)
})

t.test('GET /metrics speaks Prometheus', async t => {
  await postTts(base, { text: 'Count me.' })
  const reply = await request(base + '/metrics')
  t.equal(reply.status, 200)
  t.match(reply.headers.get('content-type'), /^text\/plain/)
  const text = reply.body.toString()
  t.match(text, /chorus_http_requests_total\{route="\/tts",method="POST",status="200"\} \d+/)
  t.match(text, /chorus_http_request_duration_seconds_bucket\{le="[\d.]+",route="\/tts"\}/)
  t.match(text, /chorus_audio_seconds_total\{voice="en_US-probe-medium"\} [\d.e-]+/)
  t.match(text, /chorus_real_time_factor_count\{voice="en_US-probe-medium"\} \d+/)
  for (const gauge of ['chorus_queue_depth', 'chorus_pending_requests', 'chorus_loaded_voices 1', 'process_resident_memory_bytes']) t.match(text, gauge)
})

t.test('no request text in logs at info level', async t => {
  await postTts(base, { text: 'A secret only the debug log may hold.' })
  const infoLines = service.logs.filter(line => (line.level as number) >= 30)
  t.notOk(infoLines.some(line => JSON.stringify(line).includes('secret only')), 'absent at info')
  t.ok(service.logs.some(line => line.level === 20 && JSON.stringify(line).includes('secret only')), 'present at debug')
  t.ok(infoLines.some(line => typeof line.requestId === 'string' && line.msg === 'synthesis'), 'request lines carry the request id')
})
