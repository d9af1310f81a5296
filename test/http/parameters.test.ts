// Request parameters reach the engine exactly: the probe voices spell their
// inputs out in the audio.

import t from 'tap'
import { probeLength, readProbeOutput } from '../../scripts/lib/probe-model.js'
import { postTts, startTestService } from '../helpers/service.js'

const service = await startTestService()
t.teardown(() => service.stop())
const base = service.url

/** The WAV's sentences, split at the probe's full-scale markers. */
function sentences (body: Buffer): Int16Array[] {
  const pcm = new Int16Array(body.buffer.slice(body.byteOffset + 44, body.byteOffset + body.length))
  const starts: number[] = []
  pcm.forEach((s, i) => { if (s === 32767) starts.push(i) })
  return starts.map((start, i) => pcm.subarray(start, starts[i + 1] ?? pcm.length))
}

/** Reads a probe sentence, leaving out `silence` trailing samples. */
const read = (pcm: Int16Array, multi: boolean, silence = 0) =>
  readProbeOutput(Array.from(pcm.subarray(0, pcm.length - silence), s => s / 32767), multi)

t.test('scales arrive as sent', async t => {
  const reply = await postTts(base, { text: 'Hello there.', length_scale: 1.25, noise_scale: 0.5, noise_w: 0.3 })
  t.equal(reply.status, 200)
  const [first] = sentences(reply.body)
  const reading = read(first, false)
  t.ok(Math.abs(reading.lengthScale - 1.25) < 0.01, `length_scale ${reading.lengthScale}`)
  t.ok(Math.abs(reading.noiseScale - 0.5) < 0.01, `noise_scale ${reading.noiseScale}`)
  t.ok(Math.abs(reading.noiseW - 0.3) < 0.01, `noise_w ${reading.noiseW}`)
  t.equal(first.length, probeLength(reading.length, false))
})

t.test('omitted settings take the voice config\'s defaults', async t => {
  const single = read(sentences((await postTts(base, { text: 'Hi.' })).body)[0], false)
  t.ok(Math.abs(single.noiseScale - 0.667) < 0.01 && Math.abs(single.lengthScale - 1) < 0.01 && Math.abs(single.noiseW - 0.8) < 0.01)
  const multi = read(sentences((await postTts(base, { text: 'Hi.', voice: 'en_GB-probemulti-medium' })).body)[0], true)
  t.ok(Math.abs(multi.noiseScale - 0.333) < 0.01 && Math.abs(multi.lengthScale - 1.4) < 0.01 && Math.abs(multi.noiseW - 0.333) < 0.01)
  t.equal(multi.speakerId, 0)
})

t.test('speaker by id and by name reaches sid', async t => {
  const byId = read(sentences((await postTts(base, { text: 'Hi.', voice: 'en_GB-probemulti-medium', speaker: 77 })).body)[0], true)
  t.equal(byId.speakerId, 77)
  const voices = (await (await fetch(base + '/voices')).json()) as { details: Array<{ name: string, speakers: string[] }> }
  const speakers = voices.details.find(v => v.name === 'en_GB-probemulti-medium')?.speakers ?? []
  const byName = read(sentences((await postTts(base, { text: 'Hi.', voice: 'en_GB-probemulti-medium', speaker: speakers[5] })).body)[0], true)
  t.equal(byName.speakerId, 5, `speaker ${speakers[5]} is id 5`)
})

t.test('sentences come back in order with sentence_silence between them', async t => {
  const text = 'One. Two two two! Three three? Four.'
  const reply = await postTts(base, { text, sentence_silence: 0.05 })
  const parts = sentences(reply.body)
  t.equal(parts.length, 4)
  const gap = Math.floor(22050 * 0.05)
  const lengths = parts.map((p, i) => read(p, false, i < parts.length - 1 ? gap : 0).length)
  t.ok(lengths[1] > lengths[0] && lengths[2] > lengths[0], 'longer sentences where the text is longer, in order')
  for (const [i, part] of parts.entries()) {
    const expected = probeLength(lengths[i], false) + (i < parts.length - 1 ? gap : 0)
    t.equal(part.length, expected, `sentence ${i}: samples then silence, none after the last`)
  }
})

t.test('the built-in voice speaks, with length_scale as rate and sentence_silence', async t => {
  const normal = await postTts(base, { text: 'Hello there. This is the built-in voice.', voice: 'en_US-espeak-low' })
  t.equal(normal.status, 200)
  const slow = await postTts(base, { text: 'Hello there. This is the built-in voice.', voice: 'en_US-espeak-low', length_scale: 2 })
  const gapped = await postTts(base, { text: 'Hello there. This is the built-in voice.', voice: 'en_US-espeak-low', sentence_silence: 1 })
  const seconds = (b: Buffer) => (b.length - 44) / 2 / 22050
  t.ok(seconds(normal.body) > 1, `about two seconds of speech (${seconds(normal.body).toFixed(2)} s)`)
  t.ok(seconds(slow.body) > seconds(normal.body) * 1.5, 'length_scale 2 speaks slower')
  t.ok(Math.abs(seconds(gapped.body) - seconds(normal.body) - 1) < 0.01, 'one second of silence between the two sentences')
  t.equal((await postTts(base, { text: 'Hi.', voice: 'en_US-espeak-low', speaker: 1 })).status, 400)
})
