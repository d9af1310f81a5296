// IPA written as espeak-ng's own phoneme mnemonics, which its synthesizer
// reads inside [[ ]] ("həlˈoʊ" → "h@l'oU"): the built-in voice speaks inline
// phonemes, SSML <phoneme> and lexicon phonemes this way. The table is the
// espeak voice's own (espeakPhonemeNames): each IPA name to the shortest
// mnemonic that has it; an IPA string is read longest name first.

import type { NativeBinding } from '../engine/index.js'

/** An IPA symbol the voice's table has no phoneme for, and where it is in the string. */
export interface UnknownSymbol {
  symbol: string
  index: number
}

export class EspeakMnemonics {
  private readonly byIpa = new Map<string, string>()
  private readonly longest: number

  constructor (names: ReadonlyArray<readonly [string, string]>) {
    for (const [mnemonic, ipa] of names) {
      const key = ipa.normalize('NFC')
      // Names with no sound of their own, and mnemonics espeak-ng would not read back.
      if (key === '' || mnemonic === '' || /[\s[\]]/.test(mnemonic)) continue
      const known = this.byIpa.get(key)
      if (known === undefined || mnemonic.length < known.length) this.byIpa.set(key, mnemonic)
    }
    this.longest = Math.max(1, ...[...this.byIpa.keys()].map(k => k.length))
  }

  /** The mnemonics for `ipa` (words kept apart by single spaces), or the first symbol it has none for. */
  write (ipa: string): { mnemonics: string } | { unknown: UnknownSymbol } {
    const text = ipa.normalize('NFC').trim().replace(/\s+/gu, ' ')
    let out = ''
    let at = 0
    while (at < text.length) {
      if (text[at] === ' ') {
        out += ' '
        at++
        continue
      }
      const found = this.match(text, at)
      if (found === undefined) return { unknown: { symbol: String.fromCodePoint(text.codePointAt(at) as number), index: at } }
      out += found.mnemonic
      at += found.length
    }
    return { mnemonics: out }
  }

  private match (text: string, at: number): { mnemonic: string, length: number } | undefined {
    for (let length = Math.min(this.longest, text.length - at); length > 0; length--) {
      const mnemonic = this.byIpa.get(text.slice(at, at + length))
      if (mnemonic !== undefined) return { mnemonic, length }
    }
    return undefined
  }
}

const tables = new Map<string, EspeakMnemonics>()

/** The table of an espeak voice, read once per process (a voice's table never changes). */
export function espeakMnemonics (binding: NativeBinding, espeakVoice: string): EspeakMnemonics {
  let table = tables.get(espeakVoice)
  if (table === undefined) {
    table = new EspeakMnemonics(binding.espeakPhonemeNames(espeakVoice))
    tables.set(espeakVoice, table)
  }
  return table
}
