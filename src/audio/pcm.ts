// Raw PCM with no header: OpenAI's `pcm` is signed 16-bit little-endian mono
// at 24 kHz, whatever the voice's own rate. The WebSocket's output formats
// ask for other rates (pcm_16000 … pcm_44100) and for G.711 μ-law or A-law
// bytes (ulaw_8000, alaw_8000) through the same encoder; Cartesia's socket
// for 32-bit floats too.

import { pcmBytes } from '../engine/riff-wave.js'
import type { EncoderOptions, StreamEncoder } from './encoder.js'
import { aLawEncode } from './alaw.js'
import { muLawEncode } from './mulaw.js'
import { createResampler } from './resampler.js'

export const PCM_RATE = 24_000

export async function createPcmEncoder (sampleRate: number, options: EncoderOptions = {}): Promise<StreamEncoder> {
  const rate = options.rate ?? PCM_RATE
  const bytes = sampleEncoder(options)
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

/** 16-bit samples to the bytes the options ask for. */
function sampleEncoder (options: EncoderOptions): (pcm: Int16Array) => Uint8Array {
  if (options.ulaw === true) return muLawEncode
  if (options.alaw === true) return aLawEncode
  if (options.float32 === true) {
    return pcm => {
      const out = new Float32Array(pcm.length)
      for (let i = 0; i < pcm.length; i++) out[i] = pcm[i] / 32768
      return new Uint8Array(out.buffer)
    }
  }
  return pcm => new Uint8Array(pcmBytes(pcm))
}
