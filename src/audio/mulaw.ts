// G.711 μ-law: 16-bit linear PCM to 8-bit logarithmic codes, as telephony
// (and ElevenLabs' ulaw_8000) carries speech. Pure functions.
//
// A sample's magnitude, biased by 132 so that every segment starts on a
// power of two, falls into one of 8 segments (the exponent); the 4 bits
// below the segment's leading bit are the mantissa. The code is the sign,
// exponent and mantissa with every bit inverted (G.711's transmission rule).

const BIAS = 0x84
/** The largest magnitude that still fits segment 7 once biased. */
const CLIP = 32635

/** One sample's μ-law code. */
export function muLawByte (sample: number): number {
  let magnitude = sample
  let sign = 0
  if (magnitude < 0) {
    sign = 0x80
    magnitude = -magnitude
  }
  if (magnitude > CLIP) magnitude = CLIP
  magnitude += BIAS
  // The segment: how far the leading bit sits above bit 7.
  let exponent = 7
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f
  return ~(sign | (exponent << 4) | mantissa) & 0xff
}

/** The linear value a μ-law code stands for (the decoder's side). */
export function muLawSample (code: number): number {
  const bits = ~code & 0xff
  const exponent = (bits >> 4) & 0x07
  const magnitude = ((((bits & 0x0f) << 3) + BIAS) << exponent) - BIAS
  return (bits & 0x80) !== 0 ? -magnitude : magnitude
}

export function muLawEncode (pcm: Int16Array): Uint8Array {
  const out = new Uint8Array(pcm.length)
  for (let i = 0; i < pcm.length; i++) out[i] = muLawByte(pcm[i])
  return out
}
