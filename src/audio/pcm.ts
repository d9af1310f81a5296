// Raw PCM with no header: OpenAI's `pcm` is signed 16-bit little-endian mono
// at 24 kHz, whatever the voice's own rate. The WebSocket's output formats
// ask for other rates (pcm_16000 … pcm_44100) and for G.711 μ-law bytes
// (ulaw_8000) through the same encoder.

import { pcmBytes } from '../engine/wav.js'
import type { EncoderOptions, StreamEncoder } from './encoder.js'
import { muLawEncode } from './mulaw.js'
import { createResampler } from './resampler.js'

export const PCM_RATE = 24_000

export async function createPcmEncoder (sampleRate: number, options: EncoderOptions = {}): Promise<StreamEncoder> {
  const rate = options.rate ?? PCM_RATE
  const bytes = options.ulaw === true ? muLawEncode : (pcm: Int16Array) => new Uint8Array(pcmBytes(pcm))
  if (sampleRate === rate) {
    return { push: pcm => bytes(pcm), finish: () => new Uint8Array(0), close: () => {} }
  }
  const resampler = await createResampler(sampleRate, rate)
  return {
    push: pcm => bytes(resampler.push(pcm)),
    finish: () => bytes(resampler.finish()),
    close: () => resampler.close()
  }
}
