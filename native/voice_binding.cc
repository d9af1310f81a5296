#include "voice_binding.h"

#include <cstring>
#include <string>
#include <utility>

#include "addon_data.h"
#include "cancel_binding.h"
#include "errors.h"
#include "espeak_synth.h"

namespace chorus {
namespace {

int IntOption(const Napi::Object& options, const char* name, int fallback) {
  Napi::Value value = options.Get(name);
  if (value.IsUndefined()) return fallback;
  if (!value.IsNumber()) throw Napi::TypeError::New(options.Env(), std::string(name) + " must be a number");
  return value.As<Napi::Number>().Int32Value();
}

// Carries a NativeError's code across the thread boundary.
class CodedAsyncWorker : public Napi::AsyncWorker {
 protected:
  explicit CodedAsyncWorker(Napi::Env env, const char* name)
      : Napi::AsyncWorker(env, name), deferred_(Napi::Promise::Deferred::New(env)) {}

  template <typename Fn>
  void Guard(Fn&& fn) {
    try {
      fn();
    } catch (const NativeError& e) {
      code_ = e.code();
      SetError(e.what());
    } catch (const std::exception& e) {
      code_ = kErrOrt;
      SetError(e.what());
    }
  }

  void OnError(const Napi::Error& error) override {
    deferred_.Reject(MakeError(Env(), code_, error.Message()).Value());
  }

 public:
  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  Napi::Promise::Deferred deferred_;
  const char* code_ = kErrOrt;
};

class LoadWorker : public CodedAsyncWorker {
 public:
  LoadWorker(Napi::Env env, std::string path, SessionSettings settings)
      : CodedAsyncWorker(env, "chorus:loadVoice"), path_(std::move(path)), settings_(settings) {}

  void Execute() override {
    Guard([this] { voice_ = std::make_shared<Voice>(path_, settings_); });
  }

  void OnOK() override {
    Napi::Env env = Env();
    auto external = Napi::External<std::shared_ptr<Voice>>::New(env, &voice_);
    deferred_.Resolve(GetAddonData(env)->voice_constructor.New({external}));
  }

 private:
  std::string path_;
  SessionSettings settings_;
  std::shared_ptr<Voice> voice_;
};

class InferWorker : public CodedAsyncWorker {
 public:
  InferWorker(Napi::Env env, std::shared_ptr<Voice> voice, InferenceRequest request,
              std::shared_ptr<CancelState> cancel)
      : CodedAsyncWorker(env, "chorus:infer"),
        voice_(std::move(voice)),
        request_(std::move(request)),
        cancel_(std::move(cancel)),
        runs_(GetAddonData(env)->runs) {
    runs_->Add(cancel_);
  }

  ~InferWorker() override { runs_->Remove(cancel_); }

  void Execute() override {
    Guard([this] { output_ = voice_->Infer(request_, cancel_.get()); });
  }

  void OnOK() override {
    Napi::Env env = Env();
    auto info = output_.GetTensorTypeAndShapeInfo();
    size_t count = info.GetElementCount();
    // The one copy of the samples: from ORT's output into JS memory, which
    // can then be transferred between threads without further copies.
    Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, count * sizeof(float));
    if (count > 0) std::memcpy(buffer.Data(), output_.GetTensorData<float>(), count * sizeof(float));
    deferred_.Resolve(Napi::Float32Array::New(env, count, buffer, 0));
  }

 private:
  std::shared_ptr<Voice> voice_;
  InferenceRequest request_;
  std::shared_ptr<CancelState> cancel_;
  std::shared_ptr<RunRegistry> runs_;
  Ort::Value output_{nullptr};
};

class EspeakSynthWorker : public CodedAsyncWorker {
 public:
  EspeakSynthWorker(Napi::Env env, std::string text, std::string voice, int rate, std::shared_ptr<CancelState> cancel)
      : CodedAsyncWorker(env, "chorus:espeakSynthesize"),
        text_(std::move(text)),
        voice_(std::move(voice)),
        rate_(rate),
        cancel_(std::move(cancel)),
        runs_(GetAddonData(env)->runs) {
    runs_->Add(cancel_);
  }

  ~EspeakSynthWorker() override { runs_->Remove(cancel_); }

  void Execute() override {
    Guard([this] { samples_ = EspeakSynthesize(text_, voice_, rate_, cancel_.get()); });
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, samples_.size() * sizeof(int16_t));
    if (!samples_.empty()) std::memcpy(buffer.Data(), samples_.data(), samples_.size() * sizeof(int16_t));
    deferred_.Resolve(Napi::Int16Array::New(env, samples_.size(), buffer, 0));
  }

 private:
  std::string text_;
  std::string voice_;
  int rate_;
  std::shared_ptr<CancelState> cancel_;
  std::shared_ptr<RunRegistry> runs_;
  std::vector<int16_t> samples_;
};

std::shared_ptr<CancelState> CancelStateArgument(const Napi::CallbackInfo& info, size_t index) {
  if (info.Length() <= index || info[index].IsUndefined()) return std::make_shared<CancelState>();
  Napi::Object token = info[index].ToObject();
  if (!token.InstanceOf(GetAddonData(info.Env())->cancel_token_constructor.Value())) {
    throw Napi::TypeError::New(info.Env(), "token must be a CancelToken");
  }
  return CancelTokenWrap::Unwrap(token)->state();
}

}  // namespace

Napi::Value EspeakSynthesize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsString() || !info[1].IsString() || !info[2].IsNumber()) {
    throw Napi::TypeError::New(env, "espeakSynthesize(text: string, voice: string, rateWpm: number, token?)");
  }
  auto* worker = new EspeakSynthWorker(env, info[0].As<Napi::String>().Utf8Value(),
                                       info[1].As<Napi::String>().Utf8Value(),
                                       info[2].As<Napi::Number>().Int32Value(), CancelStateArgument(info, 3));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

Napi::Function VoiceWrap::Define(Napi::Env env) {
  return DefineClass(env, "Voice",
                     {InstanceMethod<&VoiceWrap::Infer>("infer"),
                      InstanceMethod<&VoiceWrap::Close>("close"),
                      InstanceAccessor<&VoiceWrap::HasSpeakerInput>("hasSpeakerInput")});
}

VoiceWrap::VoiceWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<VoiceWrap>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "Voice objects are created by loadVoice()");
  }
  voice_ = *info[0].As<Napi::External<std::shared_ptr<Voice>>>().Data();
  has_speaker_input_ = voice_->has_speaker_input();
}

Napi::Value VoiceWrap::Load(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsObject()) {
    throw Napi::TypeError::New(env, "loadVoice(modelPath: string, options: object)");
  }
  Napi::Object options = info[1].As<Napi::Object>();
  SessionSettings settings;
  settings.intra_op_threads = IntOption(options, "intraOpThreads", settings.intra_op_threads);
  settings.inter_op_threads = IntOption(options, "interOpThreads", settings.inter_op_threads);
  settings.optimization_level = IntOption(options, "optimizationLevel", settings.optimization_level);
  auto* worker = new LoadWorker(env, info[0].As<Napi::String>().Utf8Value(), settings);
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

Napi::Value VoiceWrap::Infer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  // Types only: ranges were checked in TypeScript before this call.
  if (info.Length() < 5 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_bigint64_array || !info[1].IsNumber() ||
      !info[2].IsNumber() || !info[3].IsNumber() || !info[4].IsNumber()) {
    throw Napi::TypeError::New(env,
                               "infer(ids: BigInt64Array, noiseScale, lengthScale, noiseW, speakerId, token?)");
  }
  std::shared_ptr<CancelState> cancel = CancelStateArgument(info, 5);
  if (!voice_) {
    auto deferred = Napi::Promise::Deferred::New(env);
    deferred.Reject(MakeError(env, kErrClosed, "The voice has been closed").Value());
    return deferred.Promise();
  }

  InferenceRequest request;
  auto ids = info[0].As<Napi::TypedArrayOf<int64_t>>();
  request.ids.assign(ids.Data(), ids.Data() + ids.ElementLength());
  request.noise_scale = info[1].As<Napi::Number>().FloatValue();
  request.length_scale = info[2].As<Napi::Number>().FloatValue();
  request.noise_w = info[3].As<Napi::Number>().FloatValue();
  request.speaker_id = info[4].As<Napi::Number>().Int64Value();

  auto* worker = new InferWorker(env, voice_, std::move(request), std::move(cancel));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

Napi::Value VoiceWrap::Close(const Napi::CallbackInfo& info) {
  voice_.reset();
  return info.Env().Undefined();
}

Napi::Value VoiceWrap::HasSpeakerInput(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), has_speaker_input_);
}

}  // namespace chorus
