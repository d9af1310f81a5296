// Each format's encoder, fed a tone in uneven chunks as synthesis would, must
// give a stream that decodes back (or whose frames check out) to the right
// length and pitch; the pool must give the same bytes off the main thread.

import t from 'tap'
import { createFlacEncoder } from '../../src/audio/flac.js'
import { createMp3Encoder, MP3_BITRATE, MP3_QUALITY } from '../../src/audio/mp3.js'
import { loadCodecs } from '../../src/audio/native-codecs.js'
import { createOpusEncoder, OPUS_RATE, PRE_SKIP } from '../../src/audio/opus.js'
import { createPcmEncoder, PCM_RATE } from '../../src/audio/pcm.js'
import { createWavEncoder } from '../../src/audio/wav-stream.js'
import { concatBytes } from '../../src/audio/encoder.js'
import { EncodingError } from '../../src/audio/errors.js'
import { FLAG_BOS, FLAG_EOS } from '../../src/audio/ogg.js'
import { parseWav } from '../../src/engine/index.js'
import { decodeFlac, decodeMp3, decodeOggOpus, mp3Frames, tone, toneFrequency } from '../helpers/audio-decode.js'
import { HZ, input, RATE, run, SECONDS } from '../helpers/encoder-run.js'
import { unless, whyUnavailable } from '../helpers/test-tools.js'

t.test('wav: an open-length header, then the PCM unchanged', async t => {
  const { bytes } = run(await createWavEncoder(RATE))
  const wav = parseWav(bytes)
  t.match(wav, { sampleRate: RATE, channels: 1, bitsPerSample: 16 })
  t.equal(Buffer.from(bytes).readUInt32LE(40), 0xFFFFFFFF, 'length unknown while streaming')
  t.same(new Int16Array(bytes.slice(44).buffer), input)
})

t.test('pcm: 24 kHz raw samples, resampled to exactly the right length and pitch', async t => {
  const { bytes } = run(await createPcmEncoder(RATE))
  const pcm = new Int16Array(bytes.slice().buffer)
  t.equal(pcm.length, Math.round(input.length * PCM_RATE / RATE))
  t.ok(Math.abs(toneFrequency(pcm, PCM_RATE) - HZ) < 2, `pitch kept: ${toneFrequency(pcm, PCM_RATE)} Hz`)
  const same = run(await createPcmEncoder(PCM_RATE), tone(HZ, SECONDS, PCM_RATE))
  t.same(new Int16Array(same.bytes.slice().buffer), tone(HZ, SECONDS, PCM_RATE), 'already 24 kHz: passed through')
})

t.test('flac: lossless, decodes back to the same samples', async t => {
  const { bytes } = run(await createFlacEncoder(RATE))
  t.equal(Buffer.from(bytes.subarray(0, 4)).toString('ascii'), 'fLaC')
  t.ok(bytes.length < input.length * 2, 'compressed')
  const decoded = await decodeFlac(bytes)
  t.match(decoded, { sampleRate: RATE, bitsPerSample: 16 })
  t.same(decoded.pcm, input)
})

t.test('mp3: whole Layer III frames at the voice\'s rate, long enough, same pitch', async t => {
  const { bytes, chunks } = run(await createMp3Encoder(RATE))
  t.ok(chunks > 1, 'frames come out before the end')
  const info = mp3Frames(bytes)
  t.match(info, { sampleRate: RATE, kbps: MP3_BITRATE, samplesPerFrame: 576 })
  // LAME adds its encoder delay and pads the last frame: never shorter.
  t.ok(info.duration >= SECONDS && info.duration < SECONDS + 0.2, `duration ${info.duration}`)
})

t.test('mp3: decoded by mpg123 to at least the input\'s length, the same pitch', unless(whyUnavailable(['mpg123'])), async t => {
  const pcm = decodeMp3(run(await createMp3Encoder(RATE)).bytes)
  t.ok(pcm.length >= input.length, 'decodes to at least the input length')
  t.ok(Math.abs(toneFrequency(pcm.subarray(2000, 20000), RATE) - HZ) < 3, 'pitch kept')
})

t.test('mp3: streams are independent: the same input gives the same bytes with another stream open meanwhile', async t => {
  const first = run(await createMp3Encoder(RATE)).bytes
  const other = await createMp3Encoder(16000)
  other.push(tone(HZ, 0.5, 16000))
  const again = run(await createMp3Encoder(RATE)).bytes
  t.same(again, first)
  other.close()
  t.throws(() => other.push(input.subarray(0, 100)), /used after it ended/, 'an ended stream takes no more PCM')
  t.throws(() => other.finish(), /used after it ended/)
})

t.test('mp3: the native encoder refuses bad arguments with typed errors, never a crash', async t => {
  const { Mp3Encoder } = loadCodecs()
  t.throws(() => new Mp3Encoder(12345, MP3_BITRATE, MP3_QUALITY), { code: 'ERR_ENCODER', message: /LAME/ }, 'a rate MPEG does not have')
  const lame = new Mp3Encoder(RATE, MP3_BITRATE, MP3_QUALITY)
  t.throws(() => lame.encode(new Float32Array(10) as unknown as Int16Array), { code: 'ERR_INVALID_ARGUMENT' })
  t.ok(lame.finish() instanceof Uint8Array, 'an empty stream finishes')
  t.throws(() => lame.encode(input), { code: 'ERR_ENCODER', message: /after it ended/ })
  t.throws(() => lame.finish(), { code: 'ERR_ENCODER' })
  t.doesNotThrow(() => lame.close(), 'closing twice is harmless')
})

t.test('mp3: a rate the format does not have is refused before any encoder opens; a voice at one is converted to 24 kHz', async t => {
  await t.rejects(createMp3Encoder(RATE, { rate: 12345 }), new EncodingError('MP3 cannot be encoded at 12345 Hz (MP3 rates: 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000)'))
  const { bytes } = run(await createMp3Encoder(12345))
  t.equal(mp3Frames(bytes).sampleRate, 24_000)
})

t.test('opus: Ogg pages with good CRCs, RFC 7845 headers, exact length after trimming', async t => {
  const { bytes, chunks } = run(await createOpusEncoder(RATE))
  t.ok(chunks > 1, 'pages come out before the end')
  const { head, tags, pcm, pages } = decodeOggOpus(bytes)
  t.match(head, { channels: 1, preSkip: PRE_SKIP, inputRate: RATE })
  t.equal(tags, 'OpusTags')
  t.equal(pages[0].flags, FLAG_BOS, 'first page begins the stream')
  t.equal(pages[0].packets.length, 1, 'OpusHead alone on its page')
  t.equal(pages[1].packets.length, 1, 'OpusTags alone on its page')
  t.equal(pages[pages.length - 1].flags & FLAG_EOS, FLAG_EOS, 'last page ends it')
  t.same(pages.map(p => p.sequence), pages.map((_, i) => i), 'pages numbered in order')
  t.ok(new Set(pages.map(p => p.serial)).size === 1, 'one logical stream')
  // TOC configuration 27: CELT alone, super-wideband (24 kHz input), 20 ms (RFC 6716 §3.1).
  const configs = new Set(pages.slice(2).flatMap(p => p.packets.map(packet => packet[0] >> 3)))
  t.same([...configs], [27], 'every packet is a 20 ms CELT frame (OPUS_APPLICATION)')
  const expected = Math.round(input.length * OPUS_RATE / RATE) * 48000 / OPUS_RATE
  t.equal(pcm.length, expected, 'final granule position gives the exact length')
  t.ok(Math.abs(toneFrequency(pcm.subarray(4800, pcm.length - 4800), 48000) - HZ) < 3, 'pitch kept')
})

t.test('opus: a stream that ends on a frame boundary still closes with the right position', async t => {
  const encoder = await createOpusEncoder(OPUS_RATE)
  const pcm = tone(HZ, 0.2, OPUS_RATE) // ten 20 ms frames exactly
  const bytes = concatBytes([encoder.push(pcm), encoder.finish()])
  const decoded = decodeOggOpus(bytes)
  t.equal(decoded.pcm.length, pcm.length * 2)
  t.equal(decoded.pages[decoded.pages.length - 1].flags & FLAG_EOS, FLAG_EOS)
})

t.test('every encoder accepts an empty stream', async t => {
  for (const create of [createWavEncoder, createPcmEncoder, createFlacEncoder, createMp3Encoder, createOpusEncoder]) {
    const encoder = await create(RATE)
    t.doesNotThrow(() => encoder.finish(), create.name)
  }
})
