// A lexicon's IPA checked against the voices it will be spoken by, when it
// is installed: a voice's own lexicon against that voice, any other against
// every installed voice (and the built-in voice) of its language. A symbol a
// voice has no phoneme for is refused, naming the symbol, the entry and the
// voice, so an operator finds the typo at upload, not in a listener's ear.

import { invalidLexicon } from '../text/errors.js'
import { languageFits, type Lexicon } from '../text/lexicon/lexicon.js'
import { espeakMnemonics } from '../voices/builtin-phonemes.js'
import { BUILTIN_ESPEAK_VOICE } from '../voices/builtin.js'
import type { NativeBinding } from '../engine/index.js'
import { piperUnknown } from './script/plan.js'
import type { ResolvedVoice } from './synthesizer.js'

function espeakVoiceOf (voice: ResolvedVoice): string | undefined {
  if (voice.kind === 'builtin') return BUILTIN_ESPEAK_VOICE
  return voice.voice.config.phonemeType === 'espeak' ? voice.voice.config.espeakVoice : undefined
}

function unknownSymbol (voice: ResolvedVoice, ipa: string, binding: NativeBinding): string | undefined {
  if (voice.kind === 'piper') return piperUnknown(voice.voice.config, ipa)
  const written = espeakMnemonics(binding, BUILTIN_ESPEAK_VOICE).write(ipa)
  return 'unknown' in written ? written.unknown.symbol : undefined
}

/** Throws for the first entry whose IPA one of `voices` (those of the lexicon's language) cannot speak. */
export function checkLexiconPhonemes (lexicon: Lexicon, voices: readonly ResolvedVoice[], binding: NativeBinding): void {
  const speakers = voices.filter(v => {
    const language = espeakVoiceOf(v)
    return language !== undefined && languageFits(lexicon.language, language)
  })
  for (const entry of lexicon.entries) {
    if (entry.ipa === undefined) continue
    for (const voice of speakers) {
      const symbol = unknownSymbol(voice, entry.ipa, binding)
      if (symbol === undefined) continue
      const code = `U+${(symbol.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`
      throw invalidLexicon(`Expected phonemes that voice ${voice.name} can speak for ${lexicon.name ?? 'the lexicon'}, ${entry.label} but received ${JSON.stringify(entry.ipa)}: it has no phoneme "${symbol}" (${code})`,
        { details: { entry: entry.label, symbol, voice: voice.name } })
    }
  }
}
