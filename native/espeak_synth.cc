#include "espeak_synth.h"

#include <espeak-ng/speak_lib.h>

#include <cstring>
#include <mutex>

#include "errors.h"
#include "espeak_internals.h"
#include "espeak_runtime.h"

namespace chorus {
namespace {

struct SynthTarget {
  EspeakSpeech* speech;
  CancelState* cancel;
  bool with_events;
};

// espeak-ng's event positions count characters from 1.
constexpr int kFirstTextPosition = 1;
// A phoneme event's name is stored in the event's 8-byte id, unterminated when full.
constexpr size_t kPhonemeNameBytes = sizeof(espeak_EVENT::id.string);

void CollectEvents(const espeak_EVENT* events, EspeakSpeech* speech) {
  for (const espeak_EVENT* event = events; event->type != espeakEVENT_LIST_TERMINATED; ++event) {
    if (event->type == espeakEVENT_WORD) {
      speech->words.push_back({event->sample, event->text_position - kFirstTextPosition, event->length});
    } else if (event->type == espeakEVENT_PHONEME) {
      speech->phonemes.push_back({event->sample, std::string(event->id.string, strnlen(event->id.string, kPhonemeNameBytes))});
    }
  }
}

// espeak calls this with chunks of audio and the events within them;
// returning 1 stops synthesis.
int CollectSamples(short* wav, int count, espeak_EVENT* events) {
  auto* target = static_cast<SynthTarget*>(events != nullptr ? events->user_data : nullptr);
  if (target == nullptr) return 1;
  if (target->cancel != nullptr && target->cancel->IsCancelled()) return 1;
  if (wav != nullptr && count > 0) target->speech->samples.insert(target->speech->samples.end(), wav, wav + count);
  if (target->with_events) CollectEvents(events, target->speech);
  return 0;
}

// Phoneme events stay on only while a synthesis that asked for them runs.
class PhonemeEventsScope {
 public:
  explicit PhonemeEventsScope(bool on) : on_(on) {
    if (on_) SetEspeakPhonemeEventsLocked(true);
  }
  ~PhonemeEventsScope() {
    if (on_) SetEspeakPhonemeEventsLocked(false);
  }
  PhonemeEventsScope(const PhonemeEventsScope&) = delete;
  PhonemeEventsScope& operator=(const PhonemeEventsScope&) = delete;

 private:
  bool on_;
};

}  // namespace

EspeakSpeech EspeakSynthesize(const std::string& text, const std::string& voice, int rate_wpm,
                              CancelState* cancel, bool with_events, bool phoneme_input) {
  EspeakSpeech speech;
  SynthTarget target{&speech, cancel, with_events};
  std::lock_guard<std::mutex> lock(EspeakMutex());
  SelectEspeakVoiceLocked(voice);
  PhonemeEventsScope phoneme_events(with_events);
  espeak_SetSynthCallback(CollectSamples);
  espeak_SetParameter(espeakRATE, rate_wpm, 0);
  unsigned int flags = espeakCHARS_AUTO | (phoneme_input ? espeakPHONEMES : 0);
  espeak_ERROR status = espeak_Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0, flags, nullptr, &target);
  if (cancel != nullptr && cancel->IsCancelled()) throw NativeError(kErrCancelled, "Synthesis was cancelled");
  if (status != EE_OK) throw NativeError(kErrEspeak, "espeak-ng synthesis failed (status " + std::to_string(status) + ")");
  return speech;
}

}  // namespace chorus
