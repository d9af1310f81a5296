// Text to IPA phonemes with espeak-ng, split into sentences exactly as Piper
// does it (clause terminators decide punctuation and sentence ends).
#pragma once

#include <string>
#include <vector>

namespace chorus {

// Returns one UTF-8 phoneme string per non-empty sentence of `text`, with the
// clause punctuation Piper appends. `espeak_voice` is the voice config's
// espeak.voice (e.g. "en-us").
// Thread safety: any thread; holds EspeakMutex() for the whole text.
std::vector<std::string> PhonemizeSentences(const std::string& text, const std::string& espeak_voice);

}  // namespace chorus
