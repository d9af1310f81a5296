// The compressed formats on the service's own /tts and /v1/tts: chosen by the
// `format` field or the Accept header; WAV stays the default, unchanged.

import t from 'tap'
import { parseWav } from '../../src/engine/index.js'
import { decodeFlac, decodeOggOpus, mp3Frames } from '../helpers/audio-decode.js'
import { postTts, request, startTestService } from '../helpers/service.js'

const service = await startTestService()
t.teardown(() => service.stop())
const base = service.url
const SPEECH = { text: 'Good morning. Your table is ready.', voice: 'en_US-espeak-low' }
// espeak-ng's first synthesis in a process comes out some 10 ms longer than
// later ones: warm it up before taking reference lengths.
await postTts(base, SPEECH)

t.test('WAV is still the default, byte for byte, with or without format: wav', async t => {
  const body = { text: 'Hello there.', noise_scale: 0.5 }
  const plain = await postTts(base, body)
  const explicit = await postTts(base, { ...body, format: 'wav' })
  t.equal(plain.headers.get('content-type'), 'audio/wav')
  t.equal(Number(plain.headers.get('content-length')), plain.body.length, 'exact length, not streamed')
  t.same(explicit.body, plain.body)
  const accepting = await request(base + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: '*/*' }, body: JSON.stringify(body) })
  t.same(accepting.body, plain.body, 'Accept: */* keeps WAV')
})

t.test('format picks mp3, opus, flac, pcm on /tts and /v1/tts', async t => {
  const wav = parseWav((await postTts(base, SPEECH)).body)
  const mp3 = await postTts(base, { ...SPEECH, format: 'mp3' })
  t.equal(mp3.headers.get('content-type'), 'audio/mpeg')
  t.ok(Math.abs(mp3Frames(mp3.body).duration - wav.duration) < 0.1)
  const probeText = { text: 'One. Two three. Four five six.' }
  const probeWav = parseWav((await postTts(base, probeText)).body)
  const probeOpus = decodeOggOpus((await postTts(base, { ...probeText, format: 'opus' })).body)
  t.equal(probeOpus.pcm.length, Math.round(probeWav.dataBytes / 2 * 24000 / 22050) * 2, 'opus: exactly the wav\'s length')
  const opus = await postTts(base, { ...SPEECH, format: 'opus' }, '/v1/tts')
  t.equal(opus.headers.get('content-type'), 'audio/ogg')
  const opusSeconds = decodeOggOpus(opus.body).pcm.length / 48000
  t.ok(Math.abs(opusSeconds - wav.duration) < 0.005, `opus ${opusSeconds} s, wav ${wav.duration} s`)
  const flac = await postTts(base, { ...SPEECH, format: 'flac' })
  t.equal(flac.headers.get('content-type'), 'audio/flac')
  t.ok(Math.abs((await decodeFlac(flac.body)).pcm.length / 22050 - wav.duration) < 0.005)
  const pcm = await postTts(base, { ...SPEECH, format: 'pcm' })
  t.equal(pcm.headers.get('content-type'), 'audio/pcm')
  t.ok(Math.abs(pcm.body.length / 2 / 24000 - wav.duration) < 0.005)
})

t.test('the Accept header picks a format when the body does not', async t => {
  const reply = await request(base + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'audio/flac, audio/wav;q=0.5' }, body: JSON.stringify(SPEECH) })
  t.equal(reply.headers.get('content-type'), 'audio/flac')
  t.equal(reply.body.subarray(0, 4).toString(), 'fLaC')
  const overridden = await request(base + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'audio/flac' }, body: JSON.stringify({ ...SPEECH, format: 'mp3' }) })
  t.equal(overridden.headers.get('content-type'), 'audio/mpeg', 'the body wins')
})

t.test('an unknown format is a 400 in the service\'s shape', async t => {
  const ogg = await postTts(base, { ...SPEECH, format: 'ogg' })
  t.equal(ogg.status, 400)
  t.match(ogg.json, { error: 'Expected one of mp3, opus, aac, flac, wav, pcm for format but received "ogg" (string)', code: 'ERR_INVALID_ARGUMENT', field: 'format' })
  const odd = await postTts(base, { ...SPEECH, format: 3 })
  t.match(odd.json, { error: 'Expected one of mp3, opus, aac, flac, wav, pcm for format but received 3 (number)' })
})
