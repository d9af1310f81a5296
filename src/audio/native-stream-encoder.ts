// A StreamEncoder over one of the addon's encoders (AAC, MP3): the speech
// is converted to the encoder's rate first when the voice's rate differs,
// the resampler's tail is encoded before the encoder's own, and an encoder
// used after it ended is an error rather than a crash in native code.

import { concatBytes, EMPTY, type StreamEncoder } from './encoder.js'
import { EncodingError } from './errors.js'
import { nativeCall } from './native-codecs.js'
import { createResampler } from './resampler.js'

/** What the addon's AacEncoder and Mp3Encoder have in common. */
export interface NativeEncoder {
  encode: (pcm: Int16Array) => Uint8Array
  finish: () => Uint8Array
  close: () => void
}

/** `open` makes the native encoder at `rate`; `format` names it in errors. */
export async function nativeStreamEncoder (format: string, sampleRate: number, rate: number, open: () => NativeEncoder): Promise<StreamEncoder> {
  const resampler = rate === sampleRate ? undefined : await createResampler(sampleRate, rate)
  let native: NativeEncoder
  try {
    native = nativeCall(open)
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
