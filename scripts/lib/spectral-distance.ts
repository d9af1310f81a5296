// Log-spectral distance between a signal and a lossy codec's decoding of it,
// for choosing codec settings by measurement (scripts/bench-encoders.ts):
// per 1024-sample Hann frame with speech in it, the RMS over frequency bins
// (up to a limit) of the difference of the two power spectra in dB, averaged
// over frames. Each spectrum is floored 60 dB below its own peak, so that the
// empty band above a voice's bandwidth does not dominate. 0 dB is identical;
// lower is closer.

const FRAME = 1024
/** Frames quieter than this RMS (16-bit scale) are pauses and are skipped. */
const SILENCE_RMS = 100
const FLOOR = 1e-6

/** In-place radix-2 FFT (FRAME is a power of two). */
function fft (re: Float64Array, im: Float64Array): void {
  const n = re.length
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1
    for (; (j & bit) !== 0; bit >>= 1) j ^= bit
    j ^= bit
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]]
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const angle = -2 * Math.PI / size
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const wr = Math.cos(angle * k)
        const wi = Math.sin(angle * k)
        const a = start + k
        const b = a + size / 2
        const xr = re[b] * wr - im[b] * wi
        const xi = re[b] * wi + im[b] * wr
        re[b] = re[a] - xr
        im[b] = im[a] - xi
        re[a] += xr
        im[a] += xi
      }
    }
  }
}

function powerSpectrum (x: Int16Array, start: number): Float64Array {
  const re = new Float64Array(FRAME)
  const im = new Float64Array(FRAME)
  for (let i = 0; i < FRAME; i++) re[i] = x[start + i] * (0.5 - 0.5 * Math.cos(2 * Math.PI * i / FRAME))
  fft(re, im)
  const power = new Float64Array(FRAME / 2)
  let peak = 0
  for (let i = 0; i < power.length; i++) {
    power[i] = re[i] * re[i] + im[i] * im[i]
    peak = Math.max(peak, power[i])
  }
  for (let i = 0; i < power.length; i++) power[i] = Math.max(power[i], peak * FLOOR)
  return power
}

/** The shift (in samples, within ±maxLag) that best lines `decoded` up with `reference`. */
export function bestLag (reference: Int16Array, decoded: Int16Array, maxLag: number): number {
  const span = Math.min(reference.length, decoded.length) - 2 * maxLag
  let best = 0
  let bestScore = -Infinity
  for (let lag = -maxLag; lag <= maxLag; lag++) {
    let score = 0
    for (let i = maxLag; i < maxLag + span; i += 4) score += reference[i] * decoded[i + lag]
    if (score > bestScore) {
      bestScore = score
      best = lag
    }
  }
  return best
}

/** Log-spectral distance in dB over bins up to `maxHz`; `decoded` is read from `lag` on. */
export function logSpectralDistance (reference: Int16Array, decoded: Int16Array, sampleRate: number, maxHz: number, lag = 0): number {
  const aligned = lag >= 0 ? decoded.subarray(lag) : new Int16Array([...new Int16Array(-lag), ...decoded])
  const bins = Math.floor(maxHz / sampleRate * FRAME)
  let total = 0
  let frames = 0
  for (let start = 0; start + FRAME <= Math.min(reference.length, aligned.length); start += FRAME / 2) {
    let energy = 0
    for (let i = 0; i < FRAME; i++) energy += reference[start + i] ** 2
    if (energy / FRAME < SILENCE_RMS ** 2) continue
    const a = powerSpectrum(reference, start)
    const b = powerSpectrum(aligned, start)
    let sum = 0
    for (let k = 1; k < bins; k++) sum += (10 * Math.log10(a[k] / b[k])) ** 2
    total += Math.sqrt(sum / (bins - 1))
    frames++
  }
  return total / frames
}
