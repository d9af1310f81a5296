// AAC through FFmpeg's libavcodec, which the addon loads at run time: the
// encoder's ADTS stream, fed as synthesis would feed it, decodes back with an
// independent decoder (libfaad2) to the input's length and pitch, on the main
// thread and in the encoder pool's workers alike; bad arguments get typed
// errors. Loading the library, and refusing one, is avcodec-load.unit.ts.

import { pino } from 'pino'
import t from 'tap'
import { AAC_BITRATE, AAC_FRAME, createAacEncoder } from '../../src/audio/aac.js'
import { loadAvcodec } from '../../src/audio/avcodec.js'
import { concatBytes } from '../../src/audio/encoder.js'
import { EncoderPool } from '../../src/audio/encoder-pool.js'
import { EncodingError } from '../../src/audio/errors.js'
import { loadCodecs } from '../../src/audio/native-codecs.js'
import { bestLag } from '../../scripts/lib/spectral-distance.js'
import { adtsFrames, decodeAac, tone, toneFrequency } from '../helpers/audio-decode.js'
import { HZ, input, RATE, run, SECONDS } from '../helpers/encoder-run.js'
import { unless, whyUnavailable } from '../helpers/test-tools.js'

/** Pearson correlation of `b` against `a` shifted by `lag` samples, over `a`'s length. */
function correlation (a: Int16Array, b: Int16Array, lag: number): number {
  let ab = 0
  let aa = 0
  let bb = 0
  for (let i = 0; i < a.length && i + lag < b.length; i++) {
    ab += a[i] * b[i + lag]
    aa += a[i] * a[i]
    bb += b[i + lag] * b[i + lag]
  }
  return ab / Math.sqrt(aa * bb)
}

const needsAvcodec = unless(whyUnavailable([], { avcodec: true }))
// The encoders below need the library loaded (once per process), as the service loads it.
if (needsAvcodec.skip === false) loadAvcodec()

t.test('ADTS frames of mono AAC-LC at the voice\'s rate, out as they are made', needsAvcodec, async t => {
  const { bytes, chunks } = run(await createAacEncoder(RATE))
  t.ok(chunks > 1, 'frames come out before the end')
  const frames = adtsFrames(bytes)
  t.same(new Set(frames.map(f => JSON.stringify({ objectType: f.objectType, sampleRate: f.sampleRate, channels: f.channels }))),
    new Set([JSON.stringify({ objectType: 2, sampleRate: RATE, channels: 1 })]), 'every frame AAC-LC, 22.05 kHz, mono')
  // The encoder's delay (one frame of priming) comes before the input; the last frame is padded.
  t.equal(frames.length, Math.ceil((input.length + AAC_FRAME) / AAC_FRAME), 'the input and one frame of delay')
})

t.test('decoded by libfaad2: the input within a frame of its length, the same pitch', unless(whyUnavailable(['faad'], { avcodec: true })), async t => {
  const decoded = decodeAac(run(await createAacEncoder(RATE)).bytes)
  t.equal(decoded.sampleRate, RATE)
  t.ok(Math.abs(toneFrequency(decoded.pcm.subarray(4000, 24000), RATE) - HZ) < 3, 'pitch kept')
  // A sweep lines up in one place only (a tone repeats every period).
  const sweep = Int16Array.from(input, (_, i) => Math.round(10000 * Math.sin(2 * Math.PI * (200 + 1500 * i / input.length) * i / RATE)))
  const back = decodeAac(run(await createAacEncoder(RATE), sweep).bytes).pcm
  const lag = bestLag(sweep, back, 2 * AAC_FRAME)
  t.ok(Math.abs(back.length - lag - sweep.length) <= AAC_FRAME, `${back.length - lag} samples from the sweep's start against ${sweep.length}`)
  t.ok(correlation(sweep, back, lag) > 0.99, `correlation ${correlation(sweep, back, lag)} at lag ${lag}`)
})

t.test('another rate is converted to 24 kHz; a rate asked for must be an AAC rate', needsAvcodec, async t => {
  const { bytes } = run(await createAacEncoder(20000), tone(HZ, SECONDS, 20000))
  t.equal(adtsFrames(bytes)[0].sampleRate, 24000)
  await t.rejects(createAacEncoder(RATE, { rate: 12345 }), new EncodingError('AAC cannot be encoded at 12345 Hz (AAC rates: 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000)'))
})

t.test('streams are independent: the same input gives the same bytes with another stream open meanwhile', needsAvcodec, async t => {
  const first = run(await createAacEncoder(RATE)).bytes
  const other = await createAacEncoder(16000)
  other.push(tone(HZ, 0.5, 16000))
  t.same(run(await createAacEncoder(RATE)).bytes, first)
  other.close()
  t.throws(() => other.push(input.subarray(0, 100)), /used after it ended/, 'an ended stream takes no more PCM')
  t.throws(() => other.finish(), /used after it ended/)
})

t.test('the native encoder refuses bad arguments with typed errors, never a crash', needsAvcodec, async t => {
  const { AacEncoder } = loadCodecs()
  t.throws(() => new AacEncoder(12345, AAC_BITRATE), { code: 'ERR_ENCODER', message: 'AAC cannot be encoded at 12345 Hz' })
  t.throws(() => new AacEncoder(RATE, 0), { code: 'ERR_ENCODER', message: 'AAC needs a positive bit rate' })
  t.throws(() => new AacEncoder('fast' as unknown as number, AAC_BITRATE), { code: 'ERR_INVALID_ARGUMENT' })
  const aac = new AacEncoder(RATE, AAC_BITRATE)
  t.throws(() => aac.encode(new Float32Array(10) as unknown as Int16Array), { code: 'ERR_INVALID_ARGUMENT' })
  t.same(aac.finish(), new Uint8Array(0), 'an empty stream finishes with nothing')
  t.throws(() => aac.encode(input), { code: 'ERR_ENCODER', message: /after it ended/ })
  t.throws(() => aac.finish(), { code: 'ERR_ENCODER' })
  t.doesNotThrow(() => aac.close(), 'closing twice is harmless')
})

t.test('the encoder pool: the same bytes in its workers, two streams at once, and a stream left open when it stops', needsAvcodec, async t => {
  const expected = run(await createAacEncoder(RATE)).bytes
  const pool = new EncoderPool(2, pino({ level: 'silent' }))
  t.equal(await pool.unavailable('aac'), undefined)
  const encodeInPool = async (): Promise<Uint8Array> => {
    const session = await pool.open('aac', RATE)
    const out: Uint8Array[] = []
    for (const [start, end] of [[0, 1000], [1000, 1001], [1001, 9000], [9000, input.length]]) out.push(await session.push(input.subarray(start, end)))
    out.push(await session.finish())
    return concatBytes(out)
  }
  const [a, b] = await Promise.all([encodeInPool(), encodeInPool()])
  t.same(a, expected)
  t.same(b, expected)
  // Never finished: the worker's stop frees it (the encoder's finalizer).
  const open = await pool.open('aac', RATE)
  await open.push(input)
  await pool.close()
  const again = new EncoderPool(1, pino({ level: 'silent' }))
  t.same(await (async () => {
    const session = await again.open('aac', RATE)
    return concatBytes([await session.push(input), await session.finish()])
  })(), expected, 'a new pool encodes after the old one stopped')
  await again.close()
})
