#include "espeak_synth.h"

#include <espeak-ng/speak_lib.h>

#include <mutex>

#include "errors.h"
#include "espeak_runtime.h"

namespace chorus {
namespace {

struct SynthTarget {
  std::vector<int16_t>* samples;
  CancelState* cancel;
};

// espeak calls this with chunks of audio; returning 1 stops synthesis.
int CollectSamples(short* wav, int count, espeak_EVENT* events) {
  auto* target = static_cast<SynthTarget*>(events != nullptr ? events->user_data : nullptr);
  if (target == nullptr) return 1;
  if (target->cancel != nullptr && target->cancel->IsCancelled()) return 1;
  if (wav != nullptr && count > 0) target->samples->insert(target->samples->end(), wav, wav + count);
  return 0;
}

}  // namespace

std::vector<int16_t> EspeakSynthesize(const std::string& text, const std::string& voice, int rate_wpm,
                                      CancelState* cancel) {
  std::vector<int16_t> samples;
  SynthTarget target{&samples, cancel};
  std::lock_guard<std::mutex> lock(EspeakMutex());
  SelectEspeakVoiceLocked(voice);
  espeak_SetSynthCallback(CollectSamples);
  espeak_SetParameter(espeakRATE, rate_wpm, 0);
  espeak_ERROR status = espeak_Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0, espeakCHARS_AUTO,
                                     nullptr, &target);
  if (cancel != nullptr && cancel->IsCancelled()) throw NativeError(kErrCancelled, "Synthesis was cancelled");
  if (status != EE_OK) throw NativeError(kErrEspeak, "espeak-ng synthesis failed (status " + std::to_string(status) + ")");
  return samples;
}

}  // namespace chorus
