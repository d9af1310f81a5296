// The sentences the engine-level benchmarks (bench-cuts, bench-lift) time,
// labelled: a short one, a conversational one, and one of 45 words that
// makes several chunks.

export const ENGINE_SENTENCES: ReadonlyArray<readonly [string, string]> = [
  ['short', 'Sure, I can help with that.'],
  ['conversational', 'Our next event starts in about twenty minutes, near the main stage, so grab a seat while you can.'],
  ['45 words', 'The quick brown fox jumps over the lazy dog, and then the weather turned cold, so everyone went inside, ' +
    'where a fire burned in the old stone fireplace, and the children played games until the evening came, while ' +
    'their parents talked about the long journey ahead of them all.']
]
