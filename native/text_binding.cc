#include "text_binding.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "async_task.h"
#include "errors.h"
#include "phonemize.h"

namespace chorus {
namespace {

// The single codepoint a JS string holds, or -1 when it holds zero or more
// than one (such keys can never match a phoneme and are skipped).
int64_t SingleCodepoint(const std::u16string& s) {
  if (s.size() == 1 && (s[0] < 0xD800 || s[0] > 0xDFFF)) return s[0];
  if (s.size() == 2 && s[0] >= 0xD800 && s[0] <= 0xDBFF && s[1] >= 0xDC00 && s[1] <= 0xDFFF) {
    return 0x10000 + ((static_cast<int64_t>(s[0]) - 0xD800) << 10) + (s[1] - 0xDC00);
  }
  return -1;
}

Napi::Array SentencesToJs(Napi::Env env, const std::vector<std::string>& sentences) {
  Napi::Array result = Napi::Array::New(env, sentences.size());
  for (uint32_t i = 0; i < sentences.size(); ++i) result.Set(i, Napi::String::New(env, sentences[i]));
  return result;
}

// {sentences, words}: per sentence an Int32Array of four numbers a word
// (phoneme start, phoneme end, source start, source length).
Napi::Object PhonemizedToJs(Napi::Env env, const PhonemizedText& text) {
  Napi::Array words = Napi::Array::New(env, text.words.size());
  for (uint32_t i = 0; i < text.words.size(); ++i) {
    const auto& sentence = text.words[i];
    auto packed = Napi::Int32Array::New(env, sentence.size() * 4);
    for (size_t w = 0; w < sentence.size(); ++w) {
      packed[w * 4] = static_cast<int32_t>(sentence[w].phoneme_start);
      packed[w * 4 + 1] = static_cast<int32_t>(sentence[w].phoneme_end);
      packed[w * 4 + 2] = sentence[w].source_start;
      packed[w * 4 + 3] = sentence[w].source_length;
    }
    words.Set(i, packed);
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("sentences", SentencesToJs(env, text.sentences));
  result.Set("words", words);
  return result;
}

PhonemizedText PhonemizeFor(const std::string& text, const std::string& voice, bool with_words) {
  if (with_words) return PhonemizeSentencesWithWords(text, voice);
  return {PhonemizeSentences(text, voice), {}};
}

Napi::Value PhonemizedResult(Napi::Env env, const PhonemizedText& text, bool with_words) {
  if (with_words) return PhonemizedToJs(env, text);
  return SentencesToJs(env, text.sentences);
}

class PhonemizeWorker : public PromiseWorker {
 public:
  PhonemizeWorker(Napi::Env env, std::string text, std::string voice, bool with_words)
      : PromiseWorker(env, "chorus:phonemize"), text_(std::move(text)), voice_(std::move(voice)), with_words_(with_words) {}

 protected:
  void Run() override { result_ = PhonemizeFor(text_, voice_, with_words_); }
  Napi::Value Result(Napi::Env env) override { return PhonemizedResult(env, result_, with_words_); }

 private:
  std::string text_;
  std::string voice_;
  bool with_words_;
  PhonemizedText result_;
};

bool WithWords(const Napi::CallbackInfo& info) {
  return info.Length() > 2 && info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value();
}

}  // namespace

Napi::Value Phonemize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 2 || !info[0].IsString() || !info[1].IsString()) {
      throw Napi::TypeError::New(env, "phonemize(text: string, espeakVoice: string, withWords?: boolean)");
    }
    bool with_words = WithWords(info);
    return PhonemizedResult(env, PhonemizeFor(info[0].As<Napi::String>().Utf8Value(),
                                              info[1].As<Napi::String>().Utf8Value(), with_words), with_words);
  });
}

Napi::Value PhonemizeAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 2 || !info[0].IsString() || !info[1].IsString()) {
      throw Napi::TypeError::New(env, "phonemizeAsync(text: string, espeakVoice: string, withWords?: boolean)");
    }
    auto* worker = new PhonemizeWorker(env, info[0].As<Napi::String>().Utf8Value(), info[1].As<Napi::String>().Utf8Value(),
                                       WithWords(info));
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  });
}

Napi::Value EspeakPhonemeNamesBinding(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "espeakPhonemeNames(espeakVoice: string)");
    auto names = EspeakPhonemeNames(info[0].As<Napi::String>().Utf8Value());
    Napi::Array result = Napi::Array::New(env, names.size());
    for (uint32_t i = 0; i < names.size(); ++i) {
      Napi::Array pair = Napi::Array::New(env, 2);
      pair.Set(0u, Napi::String::New(env, names[i].first));
      pair.Set(1u, Napi::String::New(env, names[i].second));
      result.Set(i, pair);
    }
    return result;
  });
}

Napi::Function PhonemeIdMapWrap::Define(Napi::Env env) {
  return DefineClass(env, "PhonemeIdMap", {InstanceMethod<&PhonemeIdMapWrap::ToIds>("toIds")});
}

PhonemeIdMapWrap::PhonemeIdMapWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PhonemeIdMapWrap>(info) {
  Napi::Env env = info.Env();
  Guarded(env, [&] { Build(info); });
}

void PhonemeIdMapWrap::Build(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) {
    throw Napi::TypeError::New(env, "new PhonemeIdMap(map: Record<string, number[]>)");
  }
  Napi::Object source = info[0].As<Napi::Object>();
  Napi::Array keys = source.GetPropertyNames();
  std::unordered_map<char32_t, PhonemeIdMap::Ids> map;
  for (uint32_t i = 0; i < keys.Length(); ++i) {
    Napi::Value key = keys.Get(i);
    int64_t codepoint = SingleCodepoint(key.ToString().Utf16Value());
    Napi::Value ids = source.Get(key);
    if (!ids.IsArray()) throw Napi::TypeError::New(env, "phoneme ids must be arrays of integers");
    Napi::Array list = ids.As<Napi::Array>();
    PhonemeIdMap::Ids values;
    for (uint32_t j = 0; j < list.Length(); ++j) {
      Napi::Value id = list.Get(j);
      if (!id.IsNumber()) throw Napi::TypeError::New(env, "phoneme ids must be arrays of integers");
      values.push_back(id.As<Napi::Number>().Int64Value());
    }
    if (codepoint >= 0) map.emplace(static_cast<char32_t>(codepoint), std::move(values));
  }
  map_ = std::make_unique<PhonemeIdMap>(std::move(map));
}

Napi::Value PhonemeIdMapWrap::ToIds(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&] { return ToIdsUnguarded(info); });
}

Napi::Value PhonemeIdMapWrap::ToIdsUnguarded(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
    throw Napi::TypeError::New(env, "toIds(codepoints: Uint32Array)");
  }
  auto phonemes = info[0].As<Napi::Uint32Array>();
  size_t missing = 0;
  PhonemeIdMap::Ids ids = map_->ToIds(phonemes.Data(), phonemes.ElementLength(), &missing);
  auto out = Napi::TypedArrayOf<int64_t>::New(env, ids.size(), napi_bigint64_array);
  std::copy(ids.begin(), ids.end(), out.Data());
  Napi::Object result = Napi::Object::New(env);
  result.Set("ids", out);
  result.Set("missing", Napi::Number::New(env, static_cast<double>(missing)));
  return result;
}

}  // namespace chorus
