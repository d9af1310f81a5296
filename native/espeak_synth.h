// espeak-ng's own formant synthesizer: Chorus's built-in voice, which needs
// no model files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cancel.h"

namespace chorus {

// Speaks `text` with espeak voice `voice` at `rate_wpm` words per minute and
// returns 16-bit samples at espeak's sample rate. Stops early, throwing
// NativeError(kErrCancelled), once `cancel` is cancelled.
// Thread safety: any thread; holds EspeakMutex() for the whole text.
std::vector<int16_t> EspeakSynthesize(const std::string& text, const std::string& voice, int rate_wpm,
                                      CancelState* cancel);

}  // namespace chorus
