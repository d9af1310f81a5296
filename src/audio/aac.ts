// AAC-LC in ADTS frames, what OpenAI's `aac` answers hold: FFmpeg's native
// AAC encoder (LGPL-2.1-or-later), loaded at run time by the addon
// (native/codec_aac.h, avcodec.ts), mono at the voice's own rate (every
// Piper rate is an AAC rate; any other is converted to 24 kHz first), at
// AAC_BITRATE. Frames come out as the encoder completes them: it works in
// 1024-sample frames and holds one back for its look-ahead.
//
// ADTS has no field for the encoder's delay, so decoders play its 1024
// samples of priming silence first (46 ms at 22.05 kHz) and the last frame's
// padding after the speech.

import type { EncoderOptions, StreamEncoder } from './encoder.js'
import { loadCodecs } from './native-codecs.js'
import { nativeStreamEncoder } from './native-stream-encoder.js'

/** The rates ADTS has an index for that FFmpeg's encoder takes. */
const AAC_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000, 88200, 96000]
/** Bits per second. */
export const AAC_BITRATE = 64_000
/** Samples per AAC frame, and the encoder's delay in samples. */
export const AAC_FRAME = 1024

/** Needs libavcodec loaded in this process (the encoder pool loads it). */
export async function createAacEncoder (sampleRate: number, options: EncoderOptions = {}): Promise<StreamEncoder> {
  const { AacEncoder } = loadCodecs()
  return await nativeStreamEncoder('AAC', AAC_RATES, sampleRate, options, rate => new AacEncoder(rate, AAC_BITRATE))
}
