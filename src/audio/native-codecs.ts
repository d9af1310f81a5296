// The codecs built into the native addon (native/codec_*.h), as the encoder
// workers use them. The addon is loaded through the engine's one loader; a
// codec failure (code ERR_ENCODER) becomes an EncodingError here.

import { loadBinding } from '../engine/native.js'
import { EncodingError } from './errors.js'

/** One LAME stream (native/codec_mp3_binding.h). */
export interface NativeMp3Encoder {
  encode: (pcm: Int16Array) => Uint8Array
  finish: () => Uint8Array
  close: () => void
}

/** One FFmpeg AAC stream (native/codec_aac_binding.h). */
export type NativeAacEncoder = NativeMp3Encoder

/** The resampler's inner loop (native/codec_polyphase_binding.h). */
export interface NativePolyphaseKernel {
  run: (input: Float32Array, start: number, phase: number, count: number) => Int16Array
}

interface NativeCodecs {
  Mp3Encoder: new (sampleRate: number, bitrateKbps: number, quality: number) => NativeMp3Encoder
  /** Needs loadAvcodec first (avcodec.ts); `bitrate` in bits per second. */
  AacEncoder: new (sampleRate: number, bitrate: number) => NativeAacEncoder
  /** Throws an Error with code ERR_AVCODEC_LOAD when the library cannot be used. */
  loadAvcodec: (libraryPath: string) => { version: string, license: string }
  PolyphaseKernel: new (coefficients: Float32Array, up: number, down: number, taps: number) => NativePolyphaseKernel
}

export function loadCodecs (): NativeCodecs {
  // The engine's NativeBinding type does not list the codecs (src/engine
  // does not use them); the addon exports them all the same.
  return loadBinding() as unknown as NativeCodecs
}

/** Runs a native codec call; its failure becomes an EncodingError with the cause kept. */
export function nativeCall<T> (call: () => T): T {
  try {
    return call()
  } catch (error) {
    throw new EncodingError(error instanceof Error ? error.message : String(error), { cause: error })
  }
}
