// OpenAI's `pcm`: raw signed 16-bit little-endian mono at 24 kHz, with no
// header, whatever the voice's own rate.

import { pcmBytes } from '../engine/wav.js'
import type { StreamEncoder } from './encoder.js'
import { createResampler } from './resampler.js'

export const PCM_RATE = 24_000

export async function createPcmEncoder (sampleRate: number): Promise<StreamEncoder> {
  if (sampleRate === PCM_RATE) {
    return { push: pcm => new Uint8Array(pcmBytes(pcm)), finish: () => new Uint8Array(0), close: () => {} }
  }
  const resampler = await createResampler(sampleRate, PCM_RATE)
  return {
    push: pcm => pcmBytes(resampler.push(pcm)),
    finish: () => pcmBytes(resampler.finish()),
    close: () => resampler.close()
  }
}
