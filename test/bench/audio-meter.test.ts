// chorus bench --format: the meters read a compressed answer's duration as it
// arrives, in any chunking, and the client asks for the format and measures it.

import t from 'tap'
import { concatBytes } from '../../src/audio/encoder.js'
import { createMp3Encoder } from '../../src/audio/mp3.js'
import { createOpusEncoder } from '../../src/audio/opus.js'
import { meterFor } from '../../bench/audio-meter.js'
import { BenchClient } from '../../bench/client.js'
import { tone } from '../helpers/audio-decode.js'
import { startTestService } from '../helpers/service.js'

const RATE = 22050
const SECONDS = 1.5

function measure (type: string, bytes: Uint8Array, step: number): number {
  const meter = meterFor(type)
  for (let i = 0; i < bytes.length; i += step) meter.push(Buffer.from(bytes.subarray(i, i + step)))
  t.equal(meter.bytes, bytes.length)
  return meter.finish()
}

t.test('mp3 and ogg opus durations, whatever the chunk sizes', async t => {
  const pcm = tone(300, SECONDS, RATE)
  const mp3 = await createMp3Encoder(RATE)
  const mp3Bytes = concatBytes([mp3.push(pcm), mp3.finish()])
  const opus = await createOpusEncoder(RATE)
  const opusBytes = concatBytes([opus.push(pcm), opus.finish()])
  for (const step of [1, 3, 100, 1e6]) {
    const mp3Seconds = measure('audio/mpeg', mp3Bytes, step)
    t.ok(mp3Seconds >= SECONDS && mp3Seconds < SECONDS + 0.1, `mp3 in ${step}-byte pieces: ${mp3Seconds} s`)
    t.ok(Math.abs(measure('audio/ogg', opusBytes, step) - SECONDS) < 0.001, `opus in ${step}-byte pieces`)
  }
  t.equal(measure('audio/pcm', new Uint8Array(48_000), 7), 1)
  t.throws(() => measure('audio/mpeg', mp3Bytes.subarray(0, mp3Bytes.length - 5), 100), /ends inside a frame/)
  t.throws(() => measure('audio/ogg', mp3Bytes, 100), /Not an Ogg page/)
})

t.test('BenchClient asks for the format and meters the answer', async t => {
  const service = await startTestService()
  t.teardown(() => service.stop())
  const text = 'Good morning. Your table is ready.'
  const item = { text, voice: 'en_US-espeak-low', repeated: false, body: JSON.stringify({ text, voice: 'en_US-espeak-low' }) }
  await new BenchClient(service.url, 30_000).synthesize(item) // espeak's first run is longer
  const seconds: Record<string, number> = {}
  for (const format of ['wav', 'mp3', 'opus', 'pcm'] as const) {
    const client = new BenchClient(service.url, 30_000, format)
    const sample = await client.synthesize(item)
    client.close()
    t.equal(sample.status, 200, format)
    t.equal(sample.error, undefined)
    t.ok(sample.ttfbMs !== null && sample.ttfbMs > 0)
    seconds[format] = sample.audioSeconds
  }
  t.ok(Math.abs(seconds.opus - seconds.wav) < 0.005 && Math.abs(seconds.pcm - seconds.wav) < 0.005, JSON.stringify(seconds))
  t.ok(seconds.mp3 >= seconds.wav - 0.005 && seconds.mp3 < seconds.wav + 0.1, 'mp3 pads its last frame only')
})
