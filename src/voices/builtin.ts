// The built-in voice: espeak-ng's own synthesizer, linked into the addon.
// It needs no files, so a fresh machine with no downloaded voice can speak.

import type { NativeBinding } from '../engine/index.js'
import { toTypedError } from '../engine/index.js'
import { SynthesisCancelledError } from '../errors.js'

export const BUILTIN_VOICE = 'en_US-espeak-low'
const ESPEAK_VOICE = 'en-us'
/** espeak's default speaking rate and the range it accepts, in words per minute. */
const BASE_RATE = 175
const MIN_RATE = 80
const MAX_RATE = 450

/** length_scale is Piper's "slower when larger": espeak's rate is its inverse. */
export function espeakRate (lengthScale: number): number {
  return Math.min(MAX_RATE, Math.max(MIN_RATE, Math.round(BASE_RATE / lengthScale)))
}

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' })

export function splitSentences (text: string): string[] {
  return [...segmenter.segment(text)].map(s => s.segment.trim()).filter(s => s.length > 0)
}

/** Speaks `text` sentence by sentence (the caller joins them with
 * `sentenceSilence`). Samples are at espeak's sample rate. */
export async function synthesizeBuiltin (
  binding: NativeBinding, text: string,
  settings: { lengthScale: number, sentenceSilence: number }, signal: AbortSignal,
  onSentence?: (pcm: Int16Array, index: number) => void
): Promise<Int16Array[]> {
  const rate = espeakRate(settings.lengthScale)
  const sentences: Int16Array[] = []
  for (const [index, sentence] of splitSentences(text).entries()) {
    if (signal.aborted) throw new SynthesisCancelledError()
    const token = new binding.CancelToken()
    const cancel = () => token.cancel()
    signal.addEventListener('abort', cancel, { once: true })
    try {
      const pcm = await binding.espeakSynthesize(sentence, ESPEAK_VOICE, rate, token)
      sentences.push(pcm)
      onSentence?.(pcm, index)
    } catch (error) {
      throw toTypedError(error)
    } finally {
      signal.removeEventListener('abort', cancel)
    }
  }
  return sentences
}

