// Text to IPA phonemes with espeak-ng, split into sentences exactly as Piper
// does it (clause terminators decide punctuation and sentence ends).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace chorus {

// One word of a sentence's phonemes, as espeak-ng separates them with spaces.
struct PhonemizedWord {
  // Code points of the sentence's phoneme string, [start, end): the word's
  // phonemes without the spaces around them.
  uint32_t phoneme_start;
  uint32_t phoneme_end;
  // Where espeak-ng read it: code points from the start of the text, and
  // its own length of the word (at most 31; see espeak_internals.h).
  int32_t source_start;
  int32_t source_length;
};

struct PhonemizedText {
  std::vector<std::string> sentences;
  // Per sentence, its words in order.
  std::vector<std::vector<PhonemizedWord>> words;
};

// Returns one UTF-8 phoneme string per non-empty sentence of `text`, with the
// clause punctuation Piper appends. `espeak_voice` is the voice config's
// espeak.voice (e.g. "en-us").
// Thread safety: any thread; holds EspeakMutex() for the whole text.
std::vector<std::string> PhonemizeSentences(const std::string& text, const std::string& espeak_voice);

// The same sentences (the same strings, by the same path) and each one's
// words with their source positions.
// Thread safety: as PhonemizeSentences.
PhonemizedText PhonemizeSentencesWithWords(const std::string& text, const std::string& espeak_voice);

// The phonemes of espeak voice `espeak_voice`'s table, each as the mnemonic
// espeak_Synth reads inside [[ ]] and its IPA name (espeak_internals.h).
// Thread safety: any thread; holds EspeakMutex() while it reads the table.
std::vector<std::pair<std::string, std::string>> EspeakPhonemeNames(const std::string& espeak_voice);

}  // namespace chorus
