// Addon entry point: registers the exports and the per-environment state.
// Context-aware: it may be loaded by the main thread and any number of
// worker threads at once, each with its own AddonData.
#include <napi.h>

#include "addon_data.h"
#include "cancel_binding.h"
#include "codec_aac_binding.h"
#include "codec_mp3_binding.h"
#include "codec_polyphase_binding.h"
#include "errors.h"
#include "load_claim_binding.h"
#include "malloc_tuning_binding.h"
#include "runtime_binding.h"
#include "task_clock_binding.h"
#include "text_binding.h"
#include "voice_binding.h"
#include "voice_registry.h"

namespace chorus {
namespace {

Napi::Object Register(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  data->voice_constructor = Napi::Persistent(VoiceWrap::Define(env));
  data->cancel_token_constructor = Napi::Persistent(CancelTokenWrap::Define(env));
  data->phoneme_id_map_constructor = Napi::Persistent(PhonemeIdMapWrap::Define(env));
  // Freed with the environment (napi_set_instance_data's finalizer).
  env.SetInstanceData<AddonData>(data);
  // When a worker thread stops, stop its inference runs so they do not keep
  // the thread pool busy after nobody can receive their results.
  std::shared_ptr<RunRegistry> runs = data->runs;
  // Its load claims go too: a thread that stopped mid-load must not leave
  // the voice's other workers waiting.
  const void* owner = data;
  env.AddCleanupHook([runs, owner]() {
    // No JS frame can catch anything here: a failure only means some run is
    // not stopped early, and it still finishes on its own.
    try {
      ReleaseClaimsOf(owner);
      runs->CancelAll();
    } catch (...) {
    }
  });

  exports.Set("loadOrt", Napi::Function::New<LoadOrt>(env, "loadOrt"));
  exports.Set("initEspeak", Napi::Function::New<InitEspeak>(env, "initEspeak"));
  exports.Set("phonemize", Napi::Function::New<Phonemize>(env, "phonemize"));
  exports.Set("phonemizeAsync", Napi::Function::New<PhonemizeAsync>(env, "phonemizeAsync"));
  exports.Set("espeakPhonemeNames", Napi::Function::New<EspeakPhonemeNamesBinding>(env, "espeakPhonemeNames"));
  exports.Set("espeakSynthesize", Napi::Function::New<EspeakSynthesize>(env, "espeakSynthesize"));
  exports.Set("loadVoice", Napi::Function::New<VoiceWrap::Load>(env, "loadVoice"));
  exports.Set("findVoice", Napi::Function::New<VoiceWrap::Find>(env, "findVoice"));
  exports.Set("claimLoad", Napi::Function::New<ClaimLoadBinding>(env, "claimLoad"));
  exports.Set("releaseClaim", Napi::Function::New<ReleaseClaimBinding>(env, "releaseClaim"));
  exports.Set("releaseMemory", Napi::Function::New<ReleaseMemoryBinding>(env, "releaseMemory"));
  exports.Set("tuneMalloc", Napi::Function::New<TuneMallocBinding>(env, "tuneMalloc"));
  exports.Set("taskTimes", Napi::Function::New<TaskTimesBinding>(env, "taskTimes"));
  exports.Set("nameThread", Napi::Function::New<NameThreadBinding>(env, "nameThread"));
  exports.Set("CancelToken", data->cancel_token_constructor.Value());
  exports.Set("PhonemeIdMap", data->phoneme_id_map_constructor.Value());
  exports.Set("loadAvcodec", Napi::Function::New<LoadAvcodec>(env, "loadAvcodec"));
  exports.Set("Mp3Encoder", Mp3EncoderWrap::Define(env));
  exports.Set("AacEncoder", AacEncoderWrap::Define(env));
  exports.Set("PolyphaseKernel", PolyphaseKernelWrap::Define(env));
  return exports;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  return Guarded(env, [&] { return Register(env, exports); });
}

}  // namespace
}  // namespace chorus

static Napi::Object InitChorus(Napi::Env env, Napi::Object exports) { return chorus::Init(env, exports); }

NODE_API_MODULE(chorus_native, InitChorus)
