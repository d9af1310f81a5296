// A StreamEncoder over one of the addon's encoders (AAC, MP3): the speech
// keeps the voice's rate when the format has it (every Piper rate is an AAC
// and an MPEG rate), is converted to 24 kHz otherwise or to a rate asked for,
// the resampler's tail is encoded before the encoder's own, and an encoder
// used after it ended is an error rather than a crash in native code.

import { concatBytes, EMPTY, type EncoderOptions, type StreamEncoder } from './encoder.js'
import { EncodingError } from './errors.js'
import { nativeCall } from './native-codecs.js'
import { createResampler } from './resampler.js'

/** What the addon's AacEncoder and Mp3Encoder have in common. */
export interface NativeEncoder {
  encode: (pcm: Int16Array) => Uint8Array
  finish: () => Uint8Array
  close: () => void
}

/** The format's encoder: `format` names it in errors, `rates` are the ones it
 * takes, `open` makes the native encoder at the chosen one. */
export async function nativeStreamEncoder (format: string, rates: readonly number[], sampleRate: number, options: EncoderOptions, open: (rate: number) => NativeEncoder): Promise<StreamEncoder> {
  const rate = options.rate ?? (rates.includes(sampleRate) ? sampleRate : 24_000)
  if (!rates.includes(rate)) throw new EncodingError(`${format} cannot be encoded at ${rate} Hz (${format} rates: ${rates.join(', ')})`)
  const resampler = rate === sampleRate ? undefined : await createResampler(sampleRate, rate)
  let native: NativeEncoder
  try {
    native = nativeCall(() => open(rate))
  } catch (error) {
    resampler?.close()
    throw error
  }
  let ended = false
  const usable = (): void => {
    if (ended) throw new EncodingError(`${format} encoder used after it ended`)
  }
  const encode = (pcm: Int16Array): Uint8Array => pcm.length === 0 ? EMPTY : nativeCall(() => native.encode(pcm))
  return {
    push: pcm => {
      usable()
      return encode(resampler === undefined ? pcm : resampler.push(pcm))
    },
    finish: () => {
      usable()
      const tail = resampler === undefined ? EMPTY : encode(resampler.finish())
      ended = true
      const last = nativeCall(() => native.finish())
      return tail.length === 0 ? last : concatBytes([tail, last])
    },
    close: () => {
      if (!ended) native.close()
      ended = true
      resampler?.close()
    }
  }
}
