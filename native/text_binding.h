// JS face of the text side:
//   phonemize(text, espeakVoice) -> string[]  one IPA string per sentence.
//     Synchronous: runs on the calling thread while holding the espeak mutex,
//     so calls from several worker threads are serialised.
//   new PhonemeIdMap({phoneme: number[]}) and map.toIds(Uint32Array of
//     codepoints) -> {ids: BigInt64Array, missing: number}. Immutable after
//     construction; synchronous, on the calling thread.
#pragma once

#include <napi.h>

#include <memory>

#include "phoneme_ids.h"

namespace chorus {

Napi::Value Phonemize(const Napi::CallbackInfo& info);

class PhonemeIdMapWrap : public Napi::ObjectWrap<PhonemeIdMapWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit PhonemeIdMapWrap(const Napi::CallbackInfo& info);

 private:
  Napi::Value ToIds(const Napi::CallbackInfo& info);

  std::unique_ptr<PhonemeIdMap> map_;
};

}  // namespace chorus
