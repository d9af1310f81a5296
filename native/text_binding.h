// JS face of the text side:
//   phonemize(text, espeakVoice) -> string[]  one IPA string per sentence.
//     Synchronous: runs on the calling thread while holding the espeak mutex,
//     so calls from several threads are serialised. For tests and tools.
//   phonemize(text, espeakVoice, true) -> {sentences: string[], words:
//     Int32Array[]}: the same strings and, per sentence, four numbers a word
//     (its phonemes' code points [start, end) in the sentence's string, its
//     source start in code points of `text`, espeak-ng's length of it).
//   phonemizeAsync(text, espeakVoice, withWords?) -> Promise of either: the
//     same on the libuv thread pool, so a JS thread never waits for the
//     espeak mutex (which the built-in voice holds while it speaks).
//   espeakPhonemeNames(espeakVoice) -> Array<[mnemonic, ipa]>: the voice's
//     phoneme table, to write IPA as espeak-ng's own phoneme mnemonics.
//     Synchronous, under the espeak mutex; a voice's table does not change.
//   new PhonemeIdMap({phoneme: number[]}) and map.toIds(Uint32Array of
//     codepoints) -> {ids: BigInt64Array, missing: number}. Immutable after
//     construction; synchronous, on the calling thread.
#pragma once

#include <napi.h>

#include <memory>

#include "phoneme_ids.h"

namespace chorus {

Napi::Value Phonemize(const Napi::CallbackInfo& info);
Napi::Value PhonemizeAsync(const Napi::CallbackInfo& info);
Napi::Value EspeakPhonemeNamesBinding(const Napi::CallbackInfo& info);

class PhonemeIdMapWrap : public Napi::ObjectWrap<PhonemeIdMapWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit PhonemeIdMapWrap(const Napi::CallbackInfo& info);

 private:
  void Build(const Napi::CallbackInfo& info);
  Napi::Value ToIds(const Napi::CallbackInfo& info);
  Napi::Value ToIdsUnguarded(const Napi::CallbackInfo& info);

  std::unique_ptr<PhonemeIdMap> map_;
};

}  // namespace chorus
