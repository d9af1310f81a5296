// response_format "aac" through the official `openai` client: ADTS AAC-LC
// that an independent decoder (libfaad2, not the FFmpeg that encoded it)
// decodes back to the speech of the same request as WAV: its length within
// a frame, its loudness over time following the WAV's (espeak's waveform
// differs from run to run, so the comparison is of 20 ms energy envelopes,
// with another text's speech as the control). /tts (format or Accept) and
// Server-Sent Events carry the same stream. Needs libavcodec59 (the
// service's AAC) and faad (the test's decoder): without them it fails
// under CI and skips elsewhere (test-tools.ts).

import OpenAI from 'openai'
import t from 'tap'
import { AAC_FRAME } from '../../src/audio/aac.js'
import { parseWav } from '../../src/engine/index.js'
import { bestLag } from '../../scripts/lib/spectral-distance.js'
import { adtsFrames, decodeAac } from '../helpers/audio-decode.js'
import { postTts, request, startTestService } from '../helpers/service.js'
import { fileCanRun, whyUnavailable } from '../helpers/test-tools.js'

if (fileCanRun(whyUnavailable(['faad'], { avcodec: true }))) {
  const service = await startTestService()
  t.teardown(() => service.stop())
  const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: 'x', maxRetries: 0 })
  const TEXT = 'Hello, how can I help you today? The weather is fine.'
  const VOICE = 'en_US-espeak-low' as 'alloy'

  async function speak (format: 'aac' | 'wav', input = TEXT): Promise<{ bytes: Buffer, headers: Headers }> {
    const response = await client.audio.speech.create({ model: 'tts-1', input, voice: VOICE, response_format: format })
    return { bytes: Buffer.from(await response.arrayBuffer()), headers: response.headers }
  }

  function rms (pcm: Int16Array): number {
    return Math.sqrt(pcm.reduce((sum, s) => sum + s * s, 0) / pcm.length)
  }

  /** RMS of each 20 ms (441 samples at 22.05 kHz) from `from` on, `count` of them. */
  function envelope (pcm: Int16Array, from: number, count: number): number[] {
    return Array.from({ length: count }, (_, k) => rms(pcm.subarray(from + k * 441, from + (k + 1) * 441)))
  }

  function pearson (a: number[], b: number[]): number {
    const mean = (x: number[]): number => x.reduce((s, v) => s + v, 0) / x.length
    const ma = mean(a)
    const mb = mean(b)
    let ab = 0
    let aa = 0
    let bb = 0
    for (let i = 0; i < a.length; i++) {
      ab += (a[i] - ma) * (b[i] - mb)
      aa += (a[i] - ma) ** 2
      bb += (b[i] - mb) ** 2
    }
    return ab / Math.sqrt(aa * bb)
  }

  function samples (bytes: Buffer): { sampleRate: number, pcm: Int16Array } {
    const wav = parseWav(bytes)
    return { sampleRate: wav.sampleRate, pcm: new Int16Array(bytes.buffer.slice(bytes.byteOffset + wav.dataOffset, bytes.byteOffset + wav.dataOffset + wav.dataBytes)) }
  }

  // espeak's first synthesis in a process runs some 10 ms longer: warmed up first.
  await speak('wav')
  const wav = samples((await speak('wav')).bytes)
  const speech = wav.pcm

  t.test('the OpenAI client gets ADTS AAC-LC that libfaad2 decodes to the same speech', async t => {
    const { bytes, headers } = await speak('aac')
    t.equal(headers.get('content-type'), 'audio/aac')
    t.equal(headers.get('transfer-encoding'), 'chunked', 'streamed as it is made')
    const frames = adtsFrames(bytes)
    t.ok(frames.every(f => f.objectType === 2 && f.channels === 1 && f.sampleRate === wav.sampleRate), 'AAC-LC, mono, at the voice\'s rate')
    const decoded = decodeAac(bytes)
    t.equal(decoded.sampleRate, wav.sampleRate)
    // Where the speech starts in the decoded stream: the encoder's and faad's delays.
    const lag = bestLag(speech, decoded.pcm, 2 * AAC_FRAME)
    const length = decoded.pcm.length - lag
    t.ok(Math.abs(length - speech.length) <= AAC_FRAME, `${length} samples from the speech's start against the WAV's ${speech.length}: within a frame`)
    t.ok(rms(decoded.pcm) > 0.5 * rms(speech), `not silent: RMS ${rms(decoded.pcm)} against the WAV's ${rms(speech)}`)
    const count = Math.floor(Math.min(speech.length, length) / 441)
    const same = pearson(envelope(speech, 0, count), envelope(decoded.pcm, lag, count))
    t.ok(same > 0.98, `its loudness follows the WAV's: envelope correlation ${same}`)
    const other = samples((await speak('wav', 'Seven silver swans swam silently seaward at dawn today.')).bytes).pcm
    const control = pearson(envelope(other, 0, Math.min(count, Math.floor(other.length / 441))), envelope(decoded.pcm, lag, Math.min(count, Math.floor(other.length / 441))))
    t.ok(control < 0.8, `another text's speech does not: ${control}`)
  })

  t.test('POST /tts speaks AAC too, by format or by Accept', async t => {
    const byFormat = await postTts(service.url, { text: TEXT, voice: VOICE, format: 'aac' })
    t.equal(byFormat.status, 200)
    t.equal(byFormat.headers.get('content-type'), 'audio/aac')
    t.ok(adtsFrames(byFormat.body).length > 10)
    const byAccept = await request(`${service.url}/tts`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'audio/aac' }, body: JSON.stringify({ text: TEXT, voice: VOICE }) })
    t.equal(byAccept.headers.get('content-type'), 'audio/aac')
    t.ok(decodeAac(byAccept.body).pcm.length > speech.length)
  })

  t.test('stream_format "sse": the deltas join into the same kind of stream', async t => {
    const reply = await request(`${service.url}/v1/audio/speech`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ model: 'tts-1', input: TEXT, voice: VOICE, response_format: 'aac', stream_format: 'sse' }) })
    t.equal(reply.status, 200)
    const events = reply.body.toString().split('\n\n').filter(e => e.startsWith('data: ')).map(e => JSON.parse(e.slice(6)))
    const deltas = events.filter(e => e.type === 'speech.audio.delta')
    t.ok(deltas.length > 1, 'several deltas')
    t.equal(events[events.length - 1].type, 'speech.audio.done')
    const joined = Buffer.concat(deltas.map(e => Buffer.from(e.audio, 'base64')))
    t.ok(adtsFrames(joined).every(f => f.objectType === 2), 'whole ADTS frames')
    const decoded = decodeAac(joined).pcm
    t.ok(Math.abs(decoded.length - bestLag(speech, decoded, 2 * AAC_FRAME) - speech.length) <= AAC_FRAME, 'the speech\'s length, within a frame')
  })
}
