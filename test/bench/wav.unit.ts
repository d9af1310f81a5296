// Audio duration of WAVs as they arrive in chunks: exact-length answers,
// streamed ones whose header announces 0xFFFFFFFF bytes, and bodies that are
// not WAVs at all.

import t from 'tap'
import { encodeWav, UNKNOWN_LENGTH, wavHeader } from '../../src/engine/index.js'
import { WavMeter } from '../../bench/wav.js'

function feed (bytes: Buffer, sizes: number[]): WavMeter {
  const meter = new WavMeter()
  let offset = 0
  for (let i = 0; offset < bytes.length; i++) {
    const size = sizes[i % sizes.length]
    meter.push(bytes.subarray(offset, offset + size))
    offset += size
  }
  return meter
}

t.test('an exact-length WAV, whole or in awkward chunks', async t => {
  const wav = encodeWav(new Int16Array(22050 * 3), 22050) // 3 s
  for (const sizes of [[wav.length], [1], [3, 40, 7], [44, 1000], [43, 2, 5000]]) {
    const meter = feed(wav, sizes)
    t.equal(meter.finish(), 3, `chunks of ${sizes.join(', ')}`)
    t.equal(meter.bytes, wav.length)
  }
})

t.test('a streamed WAV (data size 0xFFFFFFFF): the bytes that came are the audio', async t => {
  const header = wavHeader(UNKNOWN_LENGTH, 16000)
  t.equal(header.readUInt32LE(40), 0xFFFFFFFF)
  const meter = new WavMeter()
  meter.push(header.subarray(0, 20))
  t.equal(meter.audioBytes, 0, 'nothing known before the header is complete')
  meter.push(header.subarray(20))
  t.equal(meter.audioBytes, 0, 'header alone: no audio yet (the first sentence has not come)')
  meter.push(Buffer.alloc(16000)) // 0.5 s of 16-bit mono at 16 kHz
  t.equal(meter.audioBytes, 16000, 'the first audio bytes are seen as they arrive (TTFB)')
  meter.push(Buffer.alloc(8000))
  t.equal(meter.finish(), 0.75)
})

t.test('a streamed WAV cut short still counts what arrived', async t => {
  const meter = feed(Buffer.concat([wavHeader(UNKNOWN_LENGTH, 22050), Buffer.alloc(4410)]), [10])
  t.ok(Math.abs(meter.finish() - 0.1) < 1e-12)
})

t.test('a WAV with an extra chunk before its data is parsed whole at the end', async t => {
  const plain = encodeWav(new Int16Array(8000), 8000) // 1 s
  const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([4, 0, 0, 0]), Buffer.from('INFO')])
  const withList = Buffer.concat([plain.subarray(0, 36), list, plain.subarray(36)])
  withList.writeUInt32LE(withList.length - 8, 4)
  t.equal(feed(withList, [30]).finish(), 1)
})

t.test('a body that is not a WAV fails', async t => {
  t.throws(() => feed(Buffer.from('{"error":"Server is busy"}'.padEnd(100)), [100]).finish(), /RIFF/)
  t.throws(() => new WavMeter().finish(), /RIFF/)
})
