// G.711 A-law: 16-bit linear PCM to 8-bit logarithmic codes, as European
// telephony (and Cartesia's pcm_alaw, Deepgram's alaw) carries speech. Pure.
//
// The top 13 bits of a sample's magnitude fall into one of 8 segments: the
// first two are linear (4-bit mantissa from bits 1..4), each further one
// doubles the step. The code is sign, segment and mantissa with the even
// bits inverted (XOR 0x55, G.711's transmission rule); the sign bit is set
// for positive samples.

/** One sample's A-law code. */
export function aLawByte (sample: number): number {
  let sign = 0x80
  let magnitude = sample >> 3
  if (magnitude < 0) {
    sign = 0
    magnitude = -magnitude - 1
  }
  if (magnitude > 0x0fff) magnitude = 0x0fff
  let segment = 0
  while (segment < 7 && magnitude >= (0x20 << segment)) segment++
  const mantissa = segment === 0 ? (magnitude >> 1) & 0x0f : (magnitude >> segment) & 0x0f
  return (sign | (segment << 4) | mantissa) ^ 0x55
}

/** The linear value an A-law code stands for (the decoder's side): the middle of its step. */
export function aLawSample (code: number): number {
  const bits = code ^ 0x55
  const segment = (bits >> 4) & 0x07
  const mantissa = bits & 0x0f
  const magnitude = segment === 0 ? (mantissa << 4) + 8 : ((mantissa << 4) + 0x108) << (segment - 1)
  return (bits & 0x80) !== 0 ? magnitude : -magnitude
}

export function aLawEncode (pcm: Int16Array): Uint8Array {
  const out = new Uint8Array(pcm.length)
  for (let i = 0; i < pcm.length; i++) out[i] = aLawByte(pcm[i])
  return out
}
