// The polyphase resampler is a real band-limited converter: exact lengths,
// the same output however the input is chunked, a flat passband at the level
// libsamplerate gives, and nothing of what lies above the lower Nyquist
// frequency (no images going up, no aliases going down), checked over a sweep
// of tones.

import t from 'tap'
import { designPolyphase, PASSBAND, PolyphaseResampler, STOPBAND_DB } from '../../src/audio/polyphase-resampler.js'
import { createResampler, LibsamplerateResampler, type Resampler } from '../../src/audio/resampler.js'
import { loadCodecs } from '../../src/audio/native-codecs.js'

const AMPLITUDE = 16000

function sine (hz: number, rate: number, seconds: number): Int16Array {
  const out = new Int16Array(Math.round(rate * seconds))
  for (let i = 0; i < out.length; i++) out[i] = Math.round(AMPLITUDE * Math.sin(2 * Math.PI * hz * i / rate))
  return out
}

/** Pushes in uneven chunks, then finishes. */
function convert (resampler: Resampler, pcm: Int16Array): Int16Array {
  const parts: Int16Array[] = []
  for (let start = 0, size = 1; start < pcm.length; start += size, size = size * 3 + 7) parts.push(resampler.push(pcm.subarray(start, start + size)))
  parts.push(resampler.finish())
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const p of parts) {
    out.set(p, offset)
    offset += p.length
  }
  return out
}

function rms (x: ArrayLike<number>): number {
  let sum = 0
  for (let i = 0; i < x.length; i++) sum += x[i] * x[i]
  return Math.sqrt(sum / x.length)
}

/** The middle of a signal, away from the edges' transients. */
function middle (x: Int16Array): Int16Array {
  return x.subarray(Math.floor(x.length / 4), Math.floor(x.length * 3 / 4))
}

/** Level of what is not the tone at `hz`: the least-squares sine fit removed. */
function residual (x: Int16Array, hz: number, rate: number): number {
  let ss = 0; let sc = 0; let cc = 0; let xs = 0; let xc = 0
  for (let i = 0; i < x.length; i++) {
    const s = Math.sin(2 * Math.PI * hz * i / rate)
    const c = Math.cos(2 * Math.PI * hz * i / rate)
    ss += s * s; sc += s * c; cc += c * c; xs += x[i] * s; xc += x[i] * c
  }
  const det = ss * cc - sc * sc
  const a = (xs * cc - xc * sc) / det
  const b = (xc * ss - xs * sc) / det
  const rest = new Float64Array(x.length)
  for (let i = 0; i < x.length; i++) rest[i] = x[i] - a * Math.sin(2 * Math.PI * hz * i / rate) - b * Math.cos(2 * Math.PI * hz * i / rate)
  return rms(rest)
}

const dB = (ratio: number): number => 20 * Math.log10(ratio)

t.test('the usual voice rates get the polyphase filter; exotic ratios fall back to libsamplerate', async t => {
  t.match(designPolyphase(22050, 24000), { up: 160, down: 147 })
  t.match(designPolyphase(16000, 24000), { up: 3, down: 2 })
  t.match(designPolyphase(48000, 24000), { up: 1, down: 2 })
  t.equal(designPolyphase(22051, 24000), undefined, '24000/22051 needs 24000 phases')
  t.type(await createResampler(22050, 24000), PolyphaseResampler)
  const fallback = await createResampler(22051, 24000)
  t.type(fallback, LibsamplerateResampler)
  const input = sine(440, 22051, 0.5)
  t.equal(convert(fallback, input).length, Math.round(input.length * 24000 / 22051))
})

t.test('exact output length for any input length and chunking', async t => {
  for (const [from, to] of [[22050, 24000], [16000, 24000], [48000, 24000], [24000, 22050]]) {
    for (const length of [0, 1, 2, 57, 147, 1000, 22051]) {
      const out = convert(await createResampler(from, to), sine(300, from, length / from))
      t.equal(out.length, Math.round(length * to / from), `${from} → ${to}, ${length} samples`)
    }
  }
})

t.test('chunking does not change a single sample', async t => {
  const input = sine(1234, 22050, 0.7)
  const whole = await createResampler(22050, 24000)
  const oneShot = new Int16Array([...whole.push(input), ...whole.finish()])
  t.same(convert(await createResampler(22050, 24000), input), oneShot)
})

t.test('22.05 → 24 kHz: a flat passband, at libsamplerate\'s level, with no images (sweep)', async t => {
  const passbandEdge = PASSBAND * 22050 / 2
  for (let hz = 100; hz <= passbandEdge; hz += 700) {
    const input = sine(hz, 22050, 0.5)
    const ours = middle(convert(await createResampler(22050, 24000), input))
    const reference = middle(convert(await LibsamplerateResampler.create(22050, 24000), input))
    const gain = dB(rms(ours) / rms(middle(input)))
    t.ok(Math.abs(gain) < 0.02, `${hz} Hz passes at ${gain.toFixed(4)} dB`)
    const versus = dB(rms(ours) / rms(reference))
    // libsamplerate's own passband droops towards its 80 % edge.
    if (hz < 7000) t.ok(Math.abs(versus) < 0.02, `${hz} Hz: the same level as libsamplerate (${versus.toFixed(4)} dB)`)
    // Anything but the tone (images, distortion) stays near 16-bit rounding noise.
    const spurious = dB(residual(ours, hz, 24000) / rms(ours))
    t.ok(spurious < -85, `${hz} Hz: everything else ${spurious.toFixed(1)} dB`)
  }
})

t.test('48 → 24 kHz: what lies above 12 kHz does not alias into the output (sweep)', async t => {
  for (let hz = 12000; hz < 24000; hz += 900) {
    const input = sine(hz, 48000, 0.5)
    const out = middle(convert(await createResampler(48000, 24000), input))
    const level = dB(rms(out) / rms(middle(input)))
    t.ok(level < -STOPBAND_DB + 10, `${hz} Hz is ${level.toFixed(1)} dB down`)
  }
  const kept = middle(convert(await createResampler(48000, 24000), sine(3000, 48000, 0.5)))
  t.ok(Math.abs(dB(rms(kept) / rms(middle(sine(3000, 48000, 0.5))))) < 0.02, '3 kHz passes')
})

t.test('the native inner loop matches the filter computed in double precision, and refuses reads past its input', async t => {
  const design = designPolyphase(22050, 24000)
  if (design === undefined) throw new Error('no design')
  const { up, down, taps, coefficients } = design
  const kernel = new (loadCodecs().PolyphaseKernel)(Float32Array.from(coefficients), up, down, taps)
  const input = Float32Array.from(sine(2345, 22050, 0.1))
  const count = Math.floor((input.length - taps) * up / down)
  const out = kernel.run(input, 0, 0, count)
  let worst = 0
  for (let n = 0, index = 0, phase = 0; n < count; n++) {
    let sum = 0
    for (let k = 0; k < taps; k++) sum += coefficients[phase * taps + k] * input[index + k]
    worst = Math.max(worst, Math.abs(out[n] - Math.round(sum)))
    phase += down
    index += Math.floor(phase / up)
    phase %= up
  }
  t.ok(worst <= 1, `within one step of 16-bit rounding (worst ${worst})`)
  t.throws(() => kernel.run(input, 0, 0, count + 100), { code: 'ERR_INVALID_ARGUMENT', message: /input ends before/ })
  t.throws(() => kernel.run(input, input.length, 0, 1), { code: 'ERR_INVALID_ARGUMENT' })
  t.throws(() => kernel.run(input, 0, up, 1), { code: 'ERR_INVALID_ARGUMENT', message: /phase/ })
  t.throws(() => kernel.run(input, -1, 0, 1), { code: 'ERR_INVALID_ARGUMENT' })
  t.throws(() => kernel.run(new Float64Array(100) as unknown as Float32Array, 0, 0, 1), { code: 'ERR_INVALID_ARGUMENT', message: /Float32Array/ })
  t.throws(() => kernel.run(input, 0, 0, 2 ** 40), { code: 'ERR_INVALID_ARGUMENT' })
  t.same(kernel.run(input, 0, 0, 0), new Int16Array(0), 'nothing asked, nothing read')
  t.throws(() => new (loadCodecs().PolyphaseKernel)(new Float32Array(10), up, down, taps), { code: 'ERR_INVALID_ARGUMENT' })
})
