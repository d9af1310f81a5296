// Text to per-sentence phoneme codepoints, as Piper does it: espeak-ng
// phonemes (or the text itself for phoneme_type "text"), NFD-decomposed,
// with the voice's phoneme_map applied.

import { PhonemizeError } from './errors.js'
import { toTypedError, type NativeBinding } from './native.js'
import type { VoiceConfig } from './voice-config.js'

function toCodepoints (phonemes: string, phonemeMap: Record<string, string[]>): Uint32Array {
  const out: number[] = []
  for (const phoneme of phonemes.normalize('NFD')) {
    const mapped = phonemeMap[phoneme]
    if (mapped === undefined) out.push(phoneme.codePointAt(0) as number)
    else for (const p of mapped) out.push(p.codePointAt(0) as number)
  }
  return Uint32Array.from(out)
}

/** The IPA phoneme strings of each sentence (punctuation included). */
function phonemizeText (binding: NativeBinding, text: string, config: VoiceConfig): string[] {
  if (config.phonemeType === 'text') {
    // Piper's "text" voices take the characters themselves; the whole text
    // is one sentence.
    const trimmed = text.trim()
    return trimmed.length > 0 ? [trimmed] : []
  }
  try {
    return binding.phonemize(text, config.espeakVoice)
  } catch (error) {
    const typed = toTypedError(error)
    if (typed instanceof PhonemizeError) throw typed
    throw new PhonemizeError(`Cannot phonemize with espeak voice ${config.espeakVoice}: ${(error as Error).message}`, { cause: error })
  }
}

/** phonemizeText on the libuv thread pool: the calling thread never waits
 * for the espeak mutex. */
async function phonemizeTextAsync (binding: NativeBinding, text: string, config: VoiceConfig): Promise<string[]> {
  if (config.phonemeType === 'text') return phonemizeText(binding, text, config)
  try {
    return await binding.phonemizeAsync(text, config.espeakVoice)
  } catch (error) {
    const typed = toTypedError(error)
    if (typed instanceof PhonemizeError) throw typed
    throw new PhonemizeError(`Cannot phonemize with espeak voice ${config.espeakVoice}: ${(error as Error).message}`, { cause: error })
  }
}

export async function sentencePhonemesAsync (binding: NativeBinding, text: string, config: VoiceConfig): Promise<Uint32Array[]> {
  return (await phonemizeTextAsync(binding, text, config)).map(s => toCodepoints(s, config.phonemeMap))
}

/** One Uint32Array of phoneme codepoints per sentence. */
export function sentencePhonemes (binding: NativeBinding, text: string, config: VoiceConfig): Uint32Array[] {
  return phonemizeText(binding, text, config).map(s => toCodepoints(s, config.phonemeMap))
}
