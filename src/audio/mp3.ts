// MP3 through LAME 3.100, built natively into the addon (native/codec_mp3.h).
// LAME takes the MPEG sample rates, which include the Piper voices' 16 and
// 22.05 kHz, so the voice's own rate is kept. Constant 64 kb/s: transparent
// for a mono voice at these rates, and measured faster than VBR.
//
// Why native rather than WebAssembly: LAME's own work was most of what MP3
// cost a busy service. The WebAssembly build (wasm-media-encoders) runs
// LAME's default algorithm quality (3) compiled for size and exposes no
// setter; built natively at quality 7 it runs over 3 times as fast on the
// same speech (1.2 against 4.1 ms of CPU per audio second), and decoded back
// it is no further from the input by log-spectral distance (README, Audio
// formats; npm run bench:encoders -- --settings).

import type { EncoderOptions, StreamEncoder } from './encoder.js'
import { loadCodecs } from './native-codecs.js'
import { nativeStreamEncoder } from './native-stream-encoder.js'

const MPEG_RATES = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]
export const MP3_BITRATE = 64
/** LAME's algorithm quality, 0 (slowest) … 9 (fastest): 7 is LAME's "fast"
 * setting (no noise shaping search), chosen by measurement (README). */
export const MP3_QUALITY = 7

export async function createMp3Encoder (sampleRate: number, options: EncoderOptions = {}): Promise<StreamEncoder> {
  // options.rate: the WebSocket's mp3_44100_128 asks for 44.1 kHz.
  const { Mp3Encoder } = loadCodecs()
  return await nativeStreamEncoder('MP3', MPEG_RATES, sampleRate, options, rate => new Mp3Encoder(rate, options.bitrate ?? MP3_BITRATE, MP3_QUALITY))
}
