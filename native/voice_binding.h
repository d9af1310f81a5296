// JS face of Voice:
//   loadVoice(modelPath, {intraOpThreads, interOpThreads, optimizationLevel})
//     -> Promise<Voice>. Loads on the libuv thread pool.
//   voice.infer(ids: BigInt64Array, noiseScale, lengthScale, noiseW,
//               speakerId, token?: CancelToken) -> Promise<Float32Array>.
//     Arguments are copied on the calling JS thread; the run happens on the
//     libuv thread pool, so several infers of one voice may run at once.
//   voice.close(): releases the session once runs in flight have finished;
//     later infers reject with ERR_VOICE_CLOSED.
//   voice.hasSpeakerInput: whether the model takes a `sid` input.
//   espeakSynthesize(text, espeakVoice, rateWpm, token?) -> Promise<Int16Array>
//     espeak-ng's own synthesizer (the built-in voice), on the libuv thread
//     pool, serialised with every other espeak call by the espeak mutex.
// All methods must be called on the JS thread that created the object.
#pragma once

#include <napi.h>

#include <memory>

#include "voice.h"

namespace chorus {

Napi::Value EspeakSynthesize(const Napi::CallbackInfo& info);

class VoiceWrap : public Napi::ObjectWrap<VoiceWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  static Napi::Value Load(const Napi::CallbackInfo& info);
  explicit VoiceWrap(const Napi::CallbackInfo& info);

 private:
  Napi::Value Infer(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value HasSpeakerInput(const Napi::CallbackInfo& info);

  std::shared_ptr<Voice> voice_;
  bool has_speaker_input_ = false;
};

}  // namespace chorus
