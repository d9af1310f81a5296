// espeak-ng's phoneme symbols (the union of every Piper voice's
// phoneme_id_map, all languages) to the 15 Oculus/Meta visemes that Ready
// Player Me and VRM avatars animate. The table is docs/timing.md's; a symbol
// is grouped by where the mouth is, not by how the sound is made: what an
// avatar's lips can show. Modifiers (stress, length, aspiration, tones,
// combining diacritics) and symbols not listed carry on the viseme before
// them, since they change no mouth shape of their own.

export const VISEMES = ['sil', 'PP', 'FF', 'TH', 'DD', 'kk', 'CH', 'SS', 'nn', 'RR', 'aa', 'E', 'ih', 'oh', 'ou'] as const
export type Viseme = typeof VISEMES[number]

const GROUPS: Record<Viseme, string> = {
  // Sentence ends, pauses and punctuation: the mouth at rest.
  sil: '^$_ !"#$\'(),-.:;?X',
  PP: 'pbmɓʙʘ',
  FF: 'fvɱɸβⱱʋ',
  TH: 'θð',
  DD: 'tdʈɖɗɾǀǁǂǃ',
  kk: 'kgɡɢqcɟxɣχʁŋɴɠʛʄɰʔhɦħʕʜʢʡ',
  CH: 'ʃʒɕʑʂʐɧçʝ',
  SS: 'szʦ',
  nn: 'nɲɳlɫɬɮɭʎʟ',
  RR: 'rɹɻʀɽɺɚɝ',
  aa: 'aɑɐæʌɶ',
  E: 'eɛəɘɜɤε',
  ih: 'iɪɨᵻɯj',
  oh: 'oɔɒɵøœɞ',
  ou: 'uʊʉyʏwʍɥ'
}

const TABLE = new Map<number, Viseme>()
for (const viseme of VISEMES) for (const symbol of GROUPS[viseme]) TABLE.set(symbol.codePointAt(0) as number, viseme)

/** The viseme of one phoneme codepoint, or undefined for a modifier (or an
 * unknown symbol), which carries on the viseme before it. */
export function visemeOf (codepoint: number): Viseme | undefined {
  return TABLE.get(codepoint)
}
