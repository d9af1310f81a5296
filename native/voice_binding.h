// JS face of Voice (all calls on the JS thread that made the object; work on
// the libuv thread pool; every failure rejects with an Error carrying `code`):
//   findVoice(key) -> Voice | null: the model already loaded in this process
//     under `key` (by any thread), as a new handle. Synchronous.
//   loadVoice(key, options, parts) -> Promise<Voice>: loads the model from
//     `parts` ({whole} or {encoder, decoder, boundary, info?}), unless another thread
//     loaded `key` meanwhile. options: {label, intraOpThreads,
//     encoderIntraOpThreads (split voices' encoder; 0: intraOpThreads),
//     interOpThreads, optimizationLevel}. The bytes are read off the JS
//     thread while this call holds references to them.
//   voice.infer(ids: BigInt64Array, noiseScale, lengthScale, noiseW,
//               speakerId, token?) -> Promise<Float32Array>: the whole
//     pipeline for one sentence.
//   voice.encode(same arguments) -> Promise<{latent: {data, shape}, side:
//     [{data, shape}]}> (split voices only).
//   voice.decode(latent: {data, shape}, side, token?) -> Promise<Float32Array>
//     (split voices only).
//   voice.close(): drops this handle; the model is freed when no thread
//     holds it and runs in flight have finished.
//   voice.hasSpeakerInput, voice.split, voice.memoryBytes, voice.splitInfo
//     (parts.info as loaded: a string the caller gave, '' when none),
//     voice.encoderShared (its encoder runs on a session shared with the
//     voices of the same template: parts.template and parts.weights).
//   espeakSynthesize(text, espeakVoice, rateWpm, token?) -> Promise<Int16Array>
//     espeak-ng's own synthesizer (the built-in voice), serialised with every
//     other espeak call by the espeak mutex. With a fifth argument true:
//     Promise<{samples, words: Int32Array (sample, text start in code
//     points, espeak-ng's length) a word, phonemes: {names, samples}}>,
//     from espeak-ng's word and phoneme events. A sixth argument true: text
//     inside [[ ]] is espeak-ng's phoneme mnemonics (espeakPhonemeNames).
//   releaseMemory() -> Promise<void>: returns freed memory to the operating
//     system: ONNX Runtime's arena's unused regions (once ORT is loaded),
//     then glibc's.
#pragma once

#include <napi.h>

#include <memory>
#include <string>

#include "voice.h"

namespace chorus {

Napi::Value EspeakSynthesize(const Napi::CallbackInfo& info);
Napi::Value ReleaseMemoryBinding(const Napi::CallbackInfo& info);

class VoiceWrap : public Napi::ObjectWrap<VoiceWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  static Napi::Value Find(const Napi::CallbackInfo& info);
  static Napi::Value Load(const Napi::CallbackInfo& info);
  // Wraps a loaded voice in a new JS object. JS thread only.
  static Napi::Object Wrap(Napi::Env env, std::shared_ptr<Voice> voice);
  explicit VoiceWrap(const Napi::CallbackInfo& info);

 private:
  Napi::Value Infer(const Napi::CallbackInfo& info);
  Napi::Value Encode(const Napi::CallbackInfo& info);
  Napi::Value Decode(const Napi::CallbackInfo& info);
  Napi::Value Flow(const Napi::CallbackInfo& info);
  Napi::Value DecodeOrFlow(const Napi::CallbackInfo& info, bool flow);
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value HasSpeakerInput(const Napi::CallbackInfo& info);
  Napi::Value Split(const Napi::CallbackInfo& info);
  Napi::Value MemoryBytes(const Napi::CallbackInfo& info);
  Napi::Value EncoderShared(const Napi::CallbackInfo& info);
  Napi::Value HasBusyEncoder(const Napi::CallbackInfo& info);
  Napi::Value SplitInfo(const Napi::CallbackInfo& info);

  std::shared_ptr<Voice> voice_;
  bool has_speaker_input_ = false;
  bool split_ = false;
  double memory_bytes_ = 0;
  std::string split_info_;
  bool encoder_shared_ = false;
  bool has_busy_encoder_ = false;
};

}  // namespace chorus
