#include "voice_binding.h"

#include <cstring>
#include <string>
#include <utility>

#include "addon_data.h"
#include "arena_release.h"
#include "async_task.h"
#include "cancel_binding.h"
#include "errors.h"
#include "espeak_synth.h"
#include "ort_runtime.h"
#include "task_clock.h"
#include "voice_registry.h"

namespace chorus {
namespace {

// Marks the External that carries a Voice into the constructor, so that no
// other External (or forged object) can be passed off as one.
constexpr napi_type_tag kVoiceTag = {0x63686f7275730001ULL, 0x766f696365746167ULL};

int IntOption(const Napi::Object& options, const char* name, int fallback) {
  Napi::Value value = options.Get(name);
  if (value.IsUndefined()) return fallback;
  if (!value.IsNumber()) throw Napi::TypeError::New(options.Env(), std::string(name) + " must be a number");
  return value.As<Napi::Number>().Int32Value();
}

bool BoolOption(const Napi::Object& options, const char* name, bool fallback) {
  Napi::Value value = options.Get(name);
  if (value.IsUndefined()) return fallback;
  if (!value.IsBoolean()) throw Napi::TypeError::New(options.Env(), std::string(name) + " must be a boolean");
  return value.As<Napi::Boolean>().Value();
}

Napi::Float32Array ToFloat32Array(Napi::Env env, const float* data, size_t count) {
  // The one copy of the samples: into JS memory, which can then be
  // transferred between threads without further copies.
  Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, count * sizeof(float));
  if (count > 0) std::memcpy(buffer.Data(), data, count * sizeof(float));
  return Napi::Float32Array::New(env, count, buffer, 0);
}

Napi::Object TensorToJs(Napi::Env env, const FloatTensor& tensor) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("data", ToFloat32Array(env, tensor.data.data(), tensor.data.size()));
  Napi::Array shape = Napi::Array::New(env, tensor.shape.size());
  for (uint32_t i = 0; i < tensor.shape.size(); ++i) shape.Set(i, Napi::Number::New(env, static_cast<double>(tensor.shape[i])));
  out.Set("shape", shape);
  return out;
}

// {data: Float32Array, shape: number[]} copied into a FloatTensor; the
// product of the shape must be the data's length.
FloatTensor TensorFromJs(Napi::Env env, Napi::Value value, const char* name) {
  auto fail = [&]() { return Napi::TypeError::New(env, std::string(name) + " must be {data: Float32Array, shape: number[]}"); };
  if (!value.IsObject()) throw fail();
  Napi::Object object = value.As<Napi::Object>();
  Napi::Value data = object.Get("data");
  Napi::Value shape = object.Get("shape");
  if (!data.IsTypedArray() || data.As<Napi::TypedArray>().TypedArrayType() != napi_float32_array || !shape.IsArray()) throw fail();
  FloatTensor tensor;
  Napi::Array dims = shape.As<Napi::Array>();
  double product = 1;
  for (uint32_t i = 0; i < dims.Length(); ++i) {
    Napi::Value dim = dims.Get(i);
    if (!dim.IsNumber() || dim.As<Napi::Number>().DoubleValue() < 0) throw fail();
    tensor.shape.push_back(dim.As<Napi::Number>().Int64Value());
    product *= dim.As<Napi::Number>().DoubleValue();
  }
  auto floats = data.As<Napi::Float32Array>();
  if (product != static_cast<double>(floats.ElementLength())) {
    throw Napi::RangeError::New(env, std::string(name) + ": the shape does not match the data's length");
  }
  tensor.data.assign(floats.Data(), floats.Data() + floats.ElementLength());
  return tensor;
}

std::shared_ptr<CancelState> CancelStateArgument(const Napi::CallbackInfo& info, size_t index) {
  if (info.Length() <= index || info[index].IsUndefined()) return std::make_shared<CancelState>();
  if (!info[index].IsObject() ||
      !info[index].As<Napi::Object>().InstanceOf(GetAddonData(info.Env())->cancel_token_constructor.Value())) {
    throw Napi::TypeError::New(info.Env(), "token must be a CancelToken");
  }
  return CancelTokenWrap::Unwrap(info[index].As<Napi::Object>())->state();
}

InferenceRequest RequestArguments(const Napi::CallbackInfo& info, const char* usage) {
  // Types only: ranges were checked in TypeScript before this call.
  if (info.Length() < 5 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_bigint64_array || !info[1].IsNumber() ||
      !info[2].IsNumber() || !info[3].IsNumber() || !info[4].IsNumber()) {
    throw Napi::TypeError::New(info.Env(), usage);
  }
  InferenceRequest request;
  auto ids = info[0].As<Napi::TypedArrayOf<int64_t>>();
  request.ids.assign(ids.Data(), ids.Data() + ids.ElementLength());
  request.noise_scale = info[1].As<Napi::Number>().FloatValue();
  request.length_scale = info[2].As<Napi::Number>().FloatValue();
  request.noise_w = info[3].As<Napi::Number>().FloatValue();
  request.speaker_id = info[4].As<Napi::Number>().Int64Value();
  return request;
}

Napi::Promise Rejected(Napi::Env env, const char* code, const std::string& message) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Reject(MakeError(env, code, message).Value());
  return deferred.Promise();
}

// Work that may be stopped through a CancelState, registered with the
// environment so a worker thread's shutdown stops it too.
class CancellableWorker : public PromiseWorker {
 protected:
  CancellableWorker(Napi::Env env, const char* name, std::shared_ptr<CancelState> cancel)
      : PromiseWorker(env, name), cancel_(std::move(cancel)), runs_(GetAddonData(env)->runs) {
    runs_->Add(cancel_);
  }
  ~CancellableWorker() override { runs_->Remove(cancel_); }

  std::shared_ptr<CancelState> cancel_;

 private:
  std::shared_ptr<RunRegistry> runs_;
};

class LoadWorker : public PromiseWorker {
 public:
  LoadWorker(Napi::Env env, std::string key, std::string label, SessionSettings settings, ModelParts parts,
             std::vector<Napi::ObjectReference> keep)
      : PromiseWorker(env, "chorus:loadVoice"),
        key_(std::move(key)), label_(std::move(label)), settings_(settings), parts_(std::move(parts)),
        keep_(std::move(keep)) {}

 protected:
  void Run() override {
    // ONNX Runtime's intra-op threads, made while the sessions are created,
    // inherit this thread's name: under another name than the pool's, a
    // per-thread CPU reading tells them apart.
    NameCurrentThread("chorus-ort");
    try {
      voice_ = FindOrCreateVoice(key_, [this] { return std::make_shared<Voice>(parts_, settings_, label_); });
    } catch (...) {
      NameCurrentThread("chorus-uv");
      throw;
    }
    NameCurrentThread("chorus-uv");
  }
  Napi::Value Result(Napi::Env env) override { return VoiceWrap::Wrap(env, voice_); }

 private:
  std::string key_;
  std::string label_;
  SessionSettings settings_;
  ModelParts parts_;
  // The model bytes stay alive (and unmoved) until the load is done.
  std::vector<Napi::ObjectReference> keep_;
  std::shared_ptr<Voice> voice_;
};

class InferWorker : public CancellableWorker {
 public:
  InferWorker(Napi::Env env, std::shared_ptr<Voice> voice, InferenceRequest request, std::shared_ptr<CancelState> cancel)
      : CancellableWorker(env, "chorus:infer", std::move(cancel)), voice_(std::move(voice)), request_(std::move(request)) {}

 protected:
  void Run() override { output_ = voice_->Infer(request_, cancel_.get()); }
  Napi::Value Result(Napi::Env env) override {
    return ToFloat32Array(env, output_.GetTensorData<float>(), output_.GetTensorTypeAndShapeInfo().GetElementCount());
  }

 private:
  std::shared_ptr<Voice> voice_;
  InferenceRequest request_;
  Ort::Value output_{nullptr};
};

class EncodeWorker : public CancellableWorker {
 public:
  EncodeWorker(Napi::Env env, std::shared_ptr<Voice> voice, InferenceRequest request, std::shared_ptr<CancelState> cancel)
      : CancellableWorker(env, "chorus:encode", std::move(cancel)), voice_(std::move(voice)), request_(std::move(request)) {}

 protected:
  void Run() override { tensors_ = voice_->Encode(request_, cancel_.get()); }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object result = Napi::Object::New(env);
    // The durations, when the voice has them, come after the boundary.
    size_t boundary = tensors_.size() - (voice_->has_durations() ? 1 : 0);
    result.Set("latent", TensorToJs(env, tensors_.front()));
    Napi::Array side = Napi::Array::New(env, boundary - 1);
    for (uint32_t i = 1; i < boundary; ++i) side.Set(i - 1, TensorToJs(env, tensors_[i]));
    result.Set("side", side);
    if (boundary < tensors_.size()) result.Set("durations", TensorToJs(env, tensors_.back()));
    return result;
  }

 private:
  std::shared_ptr<Voice> voice_;
  InferenceRequest request_;
  std::vector<FloatTensor> tensors_;
};

// A decoder run, or (staged voices) a flow run: the same inputs, one float output.
class DecodeWorker : public CancellableWorker {
 public:
  DecodeWorker(Napi::Env env, std::shared_ptr<Voice> voice, FloatTensor latent, std::vector<FloatTensor> side,
               std::shared_ptr<CancelState> cancel, bool flow)
      : CancellableWorker(env, flow ? "chorus:flow" : "chorus:decode", std::move(cancel)),
        voice_(std::move(voice)), latent_(std::move(latent)), side_(std::move(side)), flow_(flow) {}

 protected:
  void Run() override {
    output_ = flow_ ? voice_->Flow(latent_, side_, cancel_.get()) : voice_->Decode(latent_, side_, cancel_.get());
  }
  Napi::Value Result(Napi::Env env) override {
    return ToFloat32Array(env, output_.GetTensorData<float>(), output_.GetTensorTypeAndShapeInfo().GetElementCount());
  }

 private:
  std::shared_ptr<Voice> voice_;
  FloatTensor latent_;
  std::vector<FloatTensor> side_;
  bool flow_;
  Ort::Value output_{nullptr};
};

class EspeakSynthWorker : public CancellableWorker {
 public:
  EspeakSynthWorker(Napi::Env env, std::string text, std::string voice, int rate, std::shared_ptr<CancelState> cancel,
                    bool with_events, bool phoneme_input)
      : CancellableWorker(env, "chorus:espeakSynthesize", std::move(cancel)),
        text_(std::move(text)), voice_(std::move(voice)), rate_(rate), with_events_(with_events), phoneme_input_(phoneme_input) {}

 protected:
  void Run() override { speech_ = EspeakSynthesize(text_, voice_, rate_, cancel_.get(), with_events_, phoneme_input_); }
  Napi::Value Result(Napi::Env env) override {
    const auto& samples = speech_.samples;
    Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, samples.size() * sizeof(int16_t));
    if (!samples.empty()) std::memcpy(buffer.Data(), samples.data(), samples.size() * sizeof(int16_t));
    Napi::Int16Array pcm = Napi::Int16Array::New(env, samples.size(), buffer, 0);
    if (!with_events_) return pcm;
    return WithEvents(env, pcm);
  }

 private:
  // {samples, words: Int32Array of (sample, text start, text length) a
  // word, phonemes: {names: string[], samples: Int32Array}}.
  Napi::Object WithEvents(Napi::Env env, Napi::Int16Array pcm) {
    auto words = Napi::Int32Array::New(env, speech_.words.size() * 3);
    for (size_t i = 0; i < speech_.words.size(); ++i) {
      words[i * 3] = speech_.words[i].sample;
      words[i * 3 + 1] = speech_.words[i].text_start;
      words[i * 3 + 2] = speech_.words[i].text_length;
    }
    Napi::Array names = Napi::Array::New(env, speech_.phonemes.size());
    auto starts = Napi::Int32Array::New(env, speech_.phonemes.size());
    for (size_t i = 0; i < speech_.phonemes.size(); ++i) {
      names.Set(static_cast<uint32_t>(i), Napi::String::New(env, speech_.phonemes[i].name));
      starts[i] = speech_.phonemes[i].sample;
    }
    Napi::Object phonemes = Napi::Object::New(env);
    phonemes.Set("names", names);
    phonemes.Set("samples", starts);
    Napi::Object result = Napi::Object::New(env);
    result.Set("samples", pcm);
    result.Set("words", words);
    result.Set("phonemes", phonemes);
    return result;
  }

  std::string text_;
  std::string voice_;
  int rate_;
  bool with_events_;
  bool phoneme_input_;
  EspeakSpeech speech_;
};

// A Uint8Array part of the model: its bytes, plus a reference that keeps it alive.
ModelBytes BytesPart(Napi::Object parts, const char* name, std::vector<Napi::ObjectReference>& keep) {
  Napi::Value value = parts.Get(name);
  if (value.IsUndefined()) return {};
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
    throw Napi::TypeError::New(parts.Env(), std::string("parts.") + name + " must be a Uint8Array");
  }
  auto bytes = value.As<Napi::Uint8Array>();
  keep.push_back(Napi::Persistent(bytes.As<Napi::Object>()));
  return {bytes.Data(), bytes.ByteLength()};
}

// parts.weights: [{name: string, dims: number[], offset: number}], each a
// float weight of parts.template at `offset` in parts.encoder.
std::vector<TemplateWeight> TemplateWeights(Napi::Object parts) {
  Napi::Env env = parts.Env();
  Napi::Value value = parts.Get("weights");
  std::vector<TemplateWeight> weights;
  if (value.IsUndefined()) return weights;
  auto fail = [&]() { return Napi::TypeError::New(env, "parts.weights must be [{name: string, dims: number[], offset: number}]"); };
  if (!value.IsArray()) throw fail();
  Napi::Array list = value.As<Napi::Array>();
  for (uint32_t i = 0; i < list.Length(); ++i) {
    Napi::Value item = list.Get(i);
    if (!item.IsObject()) throw fail();
    Napi::Object object = item.As<Napi::Object>();
    Napi::Value name = object.Get("name");
    Napi::Value dims = object.Get("dims");
    Napi::Value offset = object.Get("offset");
    if (!name.IsString() || !dims.IsArray() || !offset.IsNumber() || offset.As<Napi::Number>().DoubleValue() < 0) throw fail();
    TemplateWeight weight;
    weight.name = name.As<Napi::String>().Utf8Value();
    weight.offset = static_cast<size_t>(offset.As<Napi::Number>().Int64Value());
    Napi::Array sizes = dims.As<Napi::Array>();
    for (uint32_t d = 0; d < sizes.Length(); ++d) {
      Napi::Value size = sizes.Get(d);
      if (!size.IsNumber()) throw fail();
      weight.dims.push_back(size.As<Napi::Number>().Int64Value());
    }
    weights.push_back(std::move(weight));
  }
  return weights;
}

}  // namespace

Napi::Value EspeakSynthesize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 3 || !info[0].IsString() || !info[1].IsString() || !info[2].IsNumber()) {
      throw Napi::TypeError::New(env, "espeakSynthesize(text: string, voice: string, rateWpm: number, token?, withEvents?: boolean, phonemeInput?: boolean)");
    }
    bool with_events = info.Length() > 4 && info[4].IsBoolean() && info[4].As<Napi::Boolean>().Value();
    bool phoneme_input = info.Length() > 5 && info[5].IsBoolean() && info[5].As<Napi::Boolean>().Value();
    auto* worker = new EspeakSynthWorker(env, info[0].As<Napi::String>().Utf8Value(), info[1].As<Napi::String>().Utf8Value(),
                                         info[2].As<Napi::Number>().Int32Value(), CancelStateArgument(info, 3), with_events, phoneme_input);
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  });
}

// Off the JS thread: unmapping a few hundred megabytes and walking glibc's
// heaps takes tens of milliseconds.
class ReleaseMemoryWorker : public PromiseWorker {
 public:
  explicit ReleaseMemoryWorker(Napi::Env env) : PromiseWorker(env, "chorus:releaseMemory") {}

 protected:
  void Run() override {
    if (OrtRuntimeLoaded()) ReleaseArenaMemory();
    else TrimMemory();
  }
  Napi::Value Result(Napi::Env env) override { return env.Undefined(); }
};

Napi::Value ReleaseMemoryBinding(const Napi::CallbackInfo& info) {
  return Guarded(info.Env(), [&]() -> Napi::Value {
    auto* worker = new ReleaseMemoryWorker(info.Env());
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  });
}

Napi::Function VoiceWrap::Define(Napi::Env env) {
  return DefineClass(env, "Voice",
                     {InstanceMethod<&VoiceWrap::Infer>("infer"),
                      InstanceMethod<&VoiceWrap::Encode>("encode"),
                      InstanceMethod<&VoiceWrap::Decode>("decode"),
                      InstanceMethod<&VoiceWrap::Flow>("flow"),
                      InstanceMethod<&VoiceWrap::Close>("close"),
                      InstanceAccessor<&VoiceWrap::HasSpeakerInput>("hasSpeakerInput"),
                      InstanceAccessor<&VoiceWrap::Split>("split"),
                      InstanceAccessor<&VoiceWrap::MemoryBytes>("memoryBytes"),
                      InstanceAccessor<&VoiceWrap::EncoderShared>("encoderShared"),
                      InstanceAccessor<&VoiceWrap::HasBusyEncoder>("hasBusyEncoder"),
                      InstanceAccessor<&VoiceWrap::SplitInfo>("splitInfo")});
}

Napi::Object VoiceWrap::Wrap(Napi::Env env, std::shared_ptr<Voice> voice) {
  // The constructor copies the shared_ptr before this frame ends.
  auto external = Napi::External<std::shared_ptr<Voice>>::New(env, &voice);
  external.TypeTag(&kVoiceTag);
  return GetAddonData(env)->voice_constructor.New({external});
}

VoiceWrap::VoiceWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<VoiceWrap>(info) {
  Napi::Env env = info.Env();
  Guarded(env, [&] {
    if (info.Length() != 1 || !info[0].IsExternal() || !info[0].As<Napi::External<void>>().CheckTypeTag(&kVoiceTag)) {
      throw Napi::TypeError::New(env, "Voice objects are created by loadVoice() and findVoice()");
    }
    voice_ = *info[0].As<Napi::External<std::shared_ptr<Voice>>>().Data();
    has_speaker_input_ = voice_->has_speaker_input();
    split_ = voice_->split();
    memory_bytes_ = static_cast<double>(voice_->memory_bytes());
    split_info_ = voice_->split_info();
    encoder_shared_ = voice_->encoder_shared();
    has_busy_encoder_ = voice_->has_busy_encoder();
  });
}

Napi::Value VoiceWrap::Find(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "findVoice(key: string)");
    std::shared_ptr<Voice> voice = FindVoice(info[0].As<Napi::String>().Utf8Value());
    if (!voice) return env.Null();
    return Wrap(env, std::move(voice));
  });
}

Napi::Value VoiceWrap::Load(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 3 || !info[0].IsString() || !info[1].IsObject() || !info[2].IsObject()) {
      throw Napi::TypeError::New(env, "loadVoice(key: string, options: object, parts: object)");
    }
    Napi::Object options = info[1].As<Napi::Object>();
    SessionSettings settings;
    settings.intra_op_threads = IntOption(options, "intraOpThreads", settings.intra_op_threads);
    settings.inter_op_threads = IntOption(options, "interOpThreads", settings.inter_op_threads);
    settings.encoder_intra_op_threads = IntOption(options, "encoderIntraOpThreads", settings.encoder_intra_op_threads);
    settings.optimization_level = IntOption(options, "optimizationLevel", settings.optimization_level);
    settings.preoptimize = BoolOption(options, "preoptimize", settings.preoptimize);
    settings.share_encoder = BoolOption(options, "shareEncoder", settings.share_encoder);
    std::string key = info[0].As<Napi::String>().Utf8Value();
    Napi::Value label = options.Get("label");
    std::string name = label.IsString() ? label.As<Napi::String>().Utf8Value() : key;

    Napi::Object parts = info[2].As<Napi::Object>();
    std::vector<Napi::ObjectReference> keep;
    ModelParts model;
    model.whole = BytesPart(parts, "whole", keep);
    model.encoder = BytesPart(parts, "encoder", keep);
    model.decoder = BytesPart(parts, "decoder", keep);
    model.flow = BytesPart(parts, "flow", keep);
    Napi::Value flow_output = parts.Get("flowOutput");
    if (flow_output.IsString()) model.flow_output = flow_output.As<Napi::String>().Utf8Value();
    if ((model.flow.data != nullptr) != !model.flow_output.empty()) {
      throw Napi::TypeError::New(env, "parts.flow and parts.flowOutput come together");
    }
    Napi::Value boundary = parts.Get("boundary");
    if (boundary.IsArray()) {
      Napi::Array names = boundary.As<Napi::Array>();
      for (uint32_t i = 0; i < names.Length(); ++i) model.boundary.push_back(names.Get(i).ToString().Utf8Value());
    }
    Napi::Value durations = parts.Get("durations");
    if (durations.IsString()) model.durations = durations.As<Napi::String>().Utf8Value();
    Napi::Value split_info = parts.Get("info");
    if (split_info.IsString()) model.split_info = split_info.As<Napi::String>().Utf8Value();
    model.encoder_template = BytesPart(parts, "template", keep);
    model.encoder_weights = TemplateWeights(parts);
    bool whole = model.whole.data != nullptr;
    bool split = model.encoder.data != nullptr && model.decoder.data != nullptr && !model.boundary.empty();
    if (whole == split) {
      throw Napi::TypeError::New(env, "parts must be {whole: Uint8Array} or {encoder, decoder: Uint8Array, boundary: string[]}");
    }
    auto* worker = new LoadWorker(env, std::move(key), std::move(name), settings, std::move(model), std::move(keep));
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  });
}

Napi::Value VoiceWrap::Infer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    InferenceRequest request = RequestArguments(info, "infer(ids: BigInt64Array, noiseScale, lengthScale, noiseW, speakerId, token?)");
    std::shared_ptr<CancelState> cancel = CancelStateArgument(info, 5);
    if (!voice_) return Rejected(env, kErrClosed, "The voice has been closed");
    auto* worker = new InferWorker(env, voice_, std::move(request), std::move(cancel));
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  });
}

Napi::Value VoiceWrap::Encode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    const char* usage = "encode(ids: BigInt64Array, noiseScale, lengthScale, noiseW, speakerId, token?, busy?: boolean)";
    InferenceRequest request = RequestArguments(info, usage);
    std::shared_ptr<CancelState> cancel = CancelStateArgument(info, 5);
    if (info.Length() > 6 && !info[6].IsUndefined()) {
      if (!info[6].IsBoolean()) throw Napi::TypeError::New(env, usage);
      request.busy = info[6].As<Napi::Boolean>().Value();
    }
    if (!voice_) return Rejected(env, kErrClosed, "The voice has been closed");
    auto* worker = new EncodeWorker(env, voice_, std::move(request), std::move(cancel));
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  });
}

Napi::Value VoiceWrap::Decode(const Napi::CallbackInfo& info) { return DecodeOrFlow(info, false); }

Napi::Value VoiceWrap::Flow(const Napi::CallbackInfo& info) { return DecodeOrFlow(info, true); }

Napi::Value VoiceWrap::DecodeOrFlow(const Napi::CallbackInfo& info, bool flow) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 2 || !info[1].IsArray()) {
      throw Napi::TypeError::New(env, std::string(flow ? "flow" : "decode") +
                                          "(latent: {data, shape}, side: Array<{data, shape}>, token?)");
    }
    FloatTensor latent = TensorFromJs(env, info[0], "latent");
    std::vector<FloatTensor> side;
    Napi::Array list = info[1].As<Napi::Array>();
    for (uint32_t i = 0; i < list.Length(); ++i) side.push_back(TensorFromJs(env, list.Get(i), "side"));
    std::shared_ptr<CancelState> cancel = CancelStateArgument(info, 2);
    if (!voice_) return Rejected(env, kErrClosed, "The voice has been closed");
    auto* worker = new DecodeWorker(env, voice_, std::move(latent), std::move(side), std::move(cancel), flow);
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  });
}

Napi::Value VoiceWrap::Close(const Napi::CallbackInfo& info) {
  voice_.reset();
  return info.Env().Undefined();
}

Napi::Value VoiceWrap::HasSpeakerInput(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), has_speaker_input_);
}

Napi::Value VoiceWrap::Split(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), split_); }

Napi::Value VoiceWrap::MemoryBytes(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), memory_bytes_);
}

Napi::Value VoiceWrap::EncoderShared(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), encoder_shared_);
}

Napi::Value VoiceWrap::HasBusyEncoder(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), has_busy_encoder_);
}

Napi::Value VoiceWrap::SplitInfo(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), split_info_);
}

}  // namespace chorus
