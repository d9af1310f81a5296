// espeak-ng's own formant synthesizer: Chorus's built-in voice, which needs
// no model files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cancel.h"

namespace chorus {

// A word or phoneme as espeak-ng reports it while it speaks.
struct EspeakWordEvent {
  // The sample of the output where it starts.
  int sample;
  // Code points from the start of the text, and espeak-ng's length of the
  // word (at most 31).
  int text_start;
  int text_length;
};

struct EspeakPhonemeEvent {
  int sample;
  // Its IPA name with stress marks, as espeak-ng writes it (at most 8 bytes).
  std::string name;
};

struct EspeakSpeech {
  std::vector<int16_t> samples;
  // Only when asked for: in the order spoken.
  std::vector<EspeakWordEvent> words;
  std::vector<EspeakPhonemeEvent> phonemes;
};

// Speaks `text` with espeak voice `voice` at `rate_wpm` words per minute and
// returns 16-bit samples at espeak's sample rate, with espeak-ng's word and
// phoneme events when `with_events`. With `phoneme_input`, text inside [[ ]]
// is espeak-ng's own phoneme mnemonics (espeakPHONEMES). Stops early,
// throwing NativeError(kErrCancelled), once `cancel` is cancelled.
// Thread safety: any thread; holds EspeakMutex() for the whole text.
EspeakSpeech EspeakSynthesize(const std::string& text, const std::string& voice, int rate_wpm,
                              CancelState* cancel, bool with_events, bool phoneme_input = false);

}  // namespace chorus
