#include "codec_aac_binding.h"

#include <cstring>
#include <string>
#include <vector>

#include "avcodec_runtime.h"
#include "errors.h"

namespace chorus {
namespace {

int IntArgument(const Napi::CallbackInfo& info, size_t index, const char* name) {
  if (info.Length() <= index || !info[index].IsNumber()) {
    throw NativeError(kErrInvalidArgument, std::string("AacEncoder: ") + name + " must be a number");
  }
  return info[index].As<Napi::Number>().Int32Value();
}

// A Uint8Array over an ArrayBuffer of exactly these bytes, so the encoder
// worker can transfer it rather than copy it.
Napi::Uint8Array ToJs(Napi::Env env, const std::vector<uint8_t>& bytes) {
  Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, bytes.size());
  if (!bytes.empty()) std::memcpy(buffer.Data(), bytes.data(), bytes.size());
  return Napi::Uint8Array::New(env, bytes.size(), buffer, 0);
}

}  // namespace

Napi::Value LoadAvcodec(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsString()) {
      throw NativeError(kErrInvalidArgument, "loadAvcodec: libraryPath must be a string");
    }
    const AvcodecInfo loaded = LoadAvcodecRuntime(info[0].As<Napi::String>().Utf8Value());
    Napi::Object result = Napi::Object::New(env);
    result.Set("version", loaded.version);
    result.Set("license", loaded.license);
    return result;
  });
}

Napi::Function AacEncoderWrap::Define(Napi::Env env) {
  return DefineClass(env, "AacEncoder",
                     {InstanceMethod<&AacEncoderWrap::Encode>("encode"),
                      InstanceMethod<&AacEncoderWrap::Finish>("finish"),
                      InstanceMethod<&AacEncoderWrap::Close>("close")});
}

AacEncoderWrap::AacEncoderWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<AacEncoderWrap>(info) {
  Guarded(info.Env(), [&] { Open(info); });
}

// The finalizer (garbage collection, or the environment's teardown when a
// worker thread stops) frees what the JS side never finished or closed.
// Nothing may escape it: no JS frame is there to catch.
AacEncoderWrap::~AacEncoderWrap() {
  try {
    encoder_.reset();
  } catch (...) {
  }
}

void AacEncoderWrap::Open(const Napi::CallbackInfo& info) {
  AacSettings settings{IntArgument(info, 0, "sampleRate"), IntArgument(info, 1, "bitrate")};
  encoder_ = std::make_unique<AacEncoder>(settings);
}

AacEncoder& AacEncoderWrap::Stream() {
  if (!encoder_) throw NativeError(kErrEncoder, "AAC encoder used after it ended");
  return *encoder_;
}

Napi::Value AacEncoderWrap::Encode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsTypedArray() ||
        info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int16_array) {
      throw NativeError(kErrInvalidArgument, "AacEncoder.encode: pcm must be an Int16Array");
    }
    Napi::Int16Array pcm = info[0].As<Napi::Int16Array>();
    return ToJs(env, Stream().Encode(pcm.Data(), pcm.ElementLength()));
  });
}

Napi::Value AacEncoderWrap::Finish(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    AacEncoder& stream = Stream();
    std::vector<uint8_t> rest;
    try {
      rest = stream.Finish();
    } catch (...) {
      encoder_.reset();
      throw;
    }
    encoder_.reset();
    return ToJs(env, rest);
  });
}

Napi::Value AacEncoderWrap::Close(const Napi::CallbackInfo& info) {
  return Guarded(info.Env(), [&]() -> Napi::Value {
    encoder_.reset();
    return info.Env().Undefined();
  });
}

}  // namespace chorus
