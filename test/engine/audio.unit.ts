import t from 'tap'
import {
  encodeWav, encodeWavSentences, floatToPcm16, joinSentences, parseWav, silenceLength, UNKNOWN_LENGTH, wavHeader
} from '../../src/engine/index.js'

t.test('float to PCM: peak-normalised, scaled by 32767, truncated', async t => {
  const pcm = floatToPcm16(Float32Array.of(0.5, -0.25, 0.1, -0.5, 0))
  // peak 0.5: 1 → 32767, -0.5 → -16383.5 → -16383, 0.2 → 6553.4 → 6553
  t.same(Array.from(pcm), [32767, -16383, 6553, -32767, 0])
})

t.test('float to PCM: a sentence below 1e-8 peak is silence; NaN samples are 0', async t => {
  t.same(Array.from(floatToPcm16(Float32Array.of(5e-9, -5e-9))), [0, 0])
  t.same(Array.from(floatToPcm16(Float32Array.of(NaN, 1))), [0, 32767])
  t.same(Array.from(floatToPcm16(Float32Array.of(NaN, NaN))), [0, 0])
  t.same(Array.from(floatToPcm16(new Float32Array(0))), [])
})

t.test('float to PCM: loud input is normalised, never wraps', async t => {
  t.same(Array.from(floatToPcm16(Float32Array.of(4, -2, 8))), [16383, -8191, 32767])
})

t.test('silence goes between sentences only', async t => {
  t.equal(silenceLength(22050, 0.2), 4410)
  t.equal(silenceLength(22050, 0.00005), 1, 'floor(1.1025)')
  t.equal(silenceLength(16000, 0), 0)
  const joined = joinSentences([Int16Array.of(1, 2), Int16Array.of(3), Int16Array.of(4, 5)], 2)
  t.same(Array.from(joined), [1, 2, 0, 0, 3, 0, 0, 4, 5])
  t.same(Array.from(joinSentences([Int16Array.of(7)], 100)), [7], 'no silence after the last sentence')
  t.same(Array.from(joinSentences([], 100)), [])
})

t.test('WAV header fields', async t => {
  const wav = encodeWav(Int16Array.of(1, -1, 256), 22050)
  t.equal(wav.length, 44 + 6)
  t.equal(wav.toString('ascii', 0, 4), 'RIFF')
  t.equal(wav.readUInt32LE(4), 36 + 6)
  t.equal(wav.toString('ascii', 8, 16), 'WAVEfmt ')
  t.equal(wav.readUInt32LE(16), 16)
  t.equal(wav.readUInt16LE(20), 1, 'PCM')
  t.equal(wav.readUInt16LE(22), 1, 'mono')
  t.equal(wav.readUInt32LE(24), 22050)
  t.equal(wav.readUInt32LE(28), 44100, 'byte rate')
  t.equal(wav.readUInt16LE(32), 2, 'block align')
  t.equal(wav.readUInt16LE(34), 16, 'bits')
  t.equal(wav.toString('ascii', 36, 40), 'data')
  t.equal(wav.readUInt32LE(40), 6)
  t.same([wav.readInt16LE(44), wav.readInt16LE(46), wav.readInt16LE(48)], [1, -1, 256])
  const info = parseWav(wav)
  t.match(info, { sampleRate: 22050, channels: 1, bitsPerSample: 16, dataOffset: 44, dataBytes: 6 })
  t.equal(info.duration, 3 / 22050)
})

t.test('sentences are written once into the WAV, silence between them', async t => {
  const sentences = [Int16Array.of(1, 2), Int16Array.of(3), Int16Array.of(4, 5)]
  const direct = encodeWavSentences(sentences, 2, 16000)
  t.ok(direct.equals(encodeWav(joinSentences(sentences, 2), 16000)), 'same bytes as join + encode')
  t.equal(direct.readUInt32LE(40), 9 * 2)
  t.same(Array.from(new Int16Array(direct.buffer.slice(direct.byteOffset + 44, direct.byteOffset + direct.length))), [1, 2, 0, 0, 3, 0, 0, 4, 5])
  t.equal(encodeWavSentences([], 5, 16000).length, 44, 'no sentences: an empty WAV')
})

t.test('streaming header announces an unknown length', async t => {
  const header = wavHeader(UNKNOWN_LENGTH, 16000)
  t.equal(header.readUInt32LE(4), UNKNOWN_LENGTH)
  t.equal(header.readUInt32LE(40), UNKNOWN_LENGTH)
  const info = parseWav(Buffer.concat([header, Buffer.alloc(3200)]))
  t.equal(info.dataBytes, 3200, 'only the bytes present count')
  t.equal(info.duration, 0.1)
})

t.test('parseWav rejects what is not a WAV', async t => {
  t.throws(() => parseWav(Buffer.from('hello world, not a wav')), /Not a RIFF/)
})
