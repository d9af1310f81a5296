// ElevenLabs' own SDK (@elevenlabs/elevenlabs-js, unmodified) pointed at
// Chorus's ElevenLabs HTTP routes: convert and stream give the PCM POST
// /tts gives for the same text; the with-timestamps routes give it too,
// with a character alignment that spells the text on one timeline;
// ulaw_8000 and alaw_8000 decode back to pcm_8000; GET /v1/voices lists the
// voice; and GET /v1/heard/{request id} names the last word heard of a
// streamed answer on a playback clock the test moves by hand.

import t, { type Test } from 'tap'
import { ElevenLabsClient } from '@elevenlabs/elevenlabs-js'
import { aLawSample } from '../../src/audio/alaw.js'
import { muLawSample } from '../../src/audio/mulaw.js'
import { JITTER_BUFFER_MS } from '../../src/synthesis/heard.js'
import { handClock, QUIET_VOICE, samples, startQuietService, ttsPcm, wordEnds } from '../helpers/quiet-voice.js'
import { request } from '../helpers/service.js'
import { unless } from '../helpers/test-tools.js'
import { NO_BENCH_VOICES } from '../helpers/voices.js'

const REPLY = 'Sure, I can help you with that. The next train leaves at noon from platform two.'
const clock = handClock()
const service = NO_BENCH_VOICES === false ? await startQuietService({}, { playbackClock: clock.now }) : undefined
t.teardown(async () => await service?.stop())
const eleven = new ElevenLabsClient({ apiKey: 'unused-without-keys', baseUrl: service?.url ?? 'http://127.0.0.1:9', maxRetries: 0 })

async function read (stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(Buffer.from(part))
  return Buffer.concat(parts)
}

interface Alignment { characters: string[], characterStartTimesSeconds: number[], characterEndTimesSeconds: number[] }

function checkAlignment (t: Test, alignment: Alignment, seconds: number): void {
  t.equal(alignment.characters.join(''), REPLY, 'the alignment\'s characters spell the text')
  const { characterStartTimesSeconds: starts, characterEndTimesSeconds: ends } = alignment
  t.ok(starts.every((start, i) => start <= (ends[i] as number) && (i === 0 || start >= (starts[i - 1] as number))), 'each character ends after it starts, in order')
  t.ok((ends.at(-1) as number) <= seconds + 0.001 && (ends.at(-1) as number) > seconds / 2, `one timeline over both sentences, within the audio (${ends.at(-1)} of ${seconds} s)`)
}

t.test('convert and stream: the PCM POST /tts gives for the same text', unless(NO_BENCH_VOICES), async t => {
  const expected = await ttsPcm(service as never, [REPLY])
  t.ok(expected.length > 0)
  const converted = await read(await eleven.textToSpeech.convert(QUIET_VOICE, { text: REPLY, modelId: 'eleven_flash_v2_5', outputFormat: 'pcm_24000' }))
  t.ok(converted.equals(expected), `convert: ${converted.length} bytes, sample for sample`)
  const streamed = await read(await eleven.textToSpeech.stream(QUIET_VOICE, { text: REPLY, outputFormat: 'pcm_24000' }))
  t.ok(streamed.equals(expected), `stream: ${streamed.length} bytes, sample for sample`)
})

t.test('with-timestamps, whole and streamed: the same audio, and an alignment that spells the text', unless(NO_BENCH_VOICES), async t => {
  const expected = await ttsPcm(service as never, [REPLY])
  const seconds = expected.length / 2 / 24_000
  const whole = await eleven.textToSpeech.convertWithTimestamps(QUIET_VOICE, { text: REPLY, outputFormat: 'pcm_24000' })
  t.ok(Buffer.from(whole.audioBase64, 'base64').equals(expected), 'the audio, sample for sample')
  checkAlignment(t, whole.alignment as Alignment, seconds)

  const lines = await eleven.textToSpeech.streamWithTimestamps(QUIET_VOICE, { text: REPLY, outputFormat: 'pcm_24000' })
  const audio: Buffer[] = []
  const joined: Alignment = { characters: [], characterStartTimesSeconds: [], characterEndTimesSeconds: [] }
  for await (const line of lines) {
    audio.push(Buffer.from(line.audioBase64 as string, 'base64'))
    if (line.alignment == null) continue
    joined.characters.push(...line.alignment.characters as string[])
    joined.characterStartTimesSeconds.push(...line.alignment.characterStartTimesSeconds as number[])
    joined.characterEndTimesSeconds.push(...line.alignment.characterEndTimesSeconds as number[])
  }
  t.ok(audio.length > 1, `${audio.length} lines`)
  t.ok(Buffer.concat(audio).equals(expected), 'the lines\' audio, sample for sample')
  checkAlignment(t, joined, seconds)
})

t.test('telephony: ulaw_8000 and alaw_8000 decode back to pcm_8000', unless(NO_BENCH_VOICES), async t => {
  const speak = async (outputFormat: string): Promise<Buffer> => await read(await eleven.textToSpeech.convert(QUIET_VOICE, { text: REPLY, outputFormat: outputFormat as never }))
  const linear = samples(await speak('pcm_8000'))
  t.ok(linear.length > 8000, `${linear.length} samples at 8 kHz`)
  for (const [format, decode] of [['ulaw_8000', muLawSample], ['alaw_8000', aLawSample]] as const) {
    const coded = await speak(format)
    t.equal(coded.length, linear.length, `${format}: one byte per sample`)
    let worst = 0
    coded.forEach((code, i) => { worst = Math.max(worst, Math.abs(decode(code) - (linear[i] as number)) / Math.max(256, Math.abs(linear[i] as number))) })
    t.ok(worst < 0.07, `${format}: within G.711's step (worst ${worst.toFixed(3)})`)
  }
})

t.test('GET /v1/voices lists the voice in ElevenLabs\' shape', unless(NO_BENCH_VOICES), async t => {
  const { voices } = await eleven.voices.getAll()
  t.ok(voices.some(voice => voice.voiceId === QUIET_VOICE && voice.name === QUIET_VOICE), 'the installed voice, by its name')
})

t.test('GET /v1/heard/{request id}: the last word heard of a streamed answer, on the injected clock or at the reported position', unless(NO_BENCH_VOICES), async t => {
  const words = await wordEnds(service as never, [REPLY])
  const k = words.findIndex(w => w.word === 'noon')
  const playedMs = ((words[k] as { endMs: number }).endMs + (words[k + 1] as { endMs: number }).endMs) / 2
  clock.set(500)
  await read(await eleven.textToSpeech.stream(QUIET_VOICE, { text: REPLY, outputFormat: 'pcm_24000' }, { headers: { 'X-Request-Id': 'reply-7' } }))
  clock.set(500 + JITTER_BUFFER_MS + playedMs)
  const heard = await request(`${service?.url as string}/v1/heard/reply-7`)
  t.equal(heard.status, 200)
  t.match(heard.json, { request_id: 'reply-7', last_word: 'noon', text_spoken: 'Sure, I can help you with that. The next train leaves at noon', text_remaining: 'from platform two.' })
  const reported = await request(`${service?.url as string}/v1/heard/reply-7?audio_played_ms=${words[1]?.endMs as number}`)
  t.match(reported.json, { last_word: 'I', text_remaining: 'can help you with that. The next train leaves at noon from platform two.' }, 'at the position the client reports')
  const unknown = await request(`${service?.url as string}/v1/heard/nobody`)
  t.equal(unknown.status, 404)
  t.match(unknown.json, { code: 'ERR_NOT_FOUND' })
  const bad = await request(`${service?.url as string}/v1/heard/reply-7?audio_played_ms=soon`)
  t.equal(bad.status, 400)
  t.match(bad.json, { error: 'Expected a number of milliseconds of at least 0 for audio_played_ms but received "soon" (string)' })
})
