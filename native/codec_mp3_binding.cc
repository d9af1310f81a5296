#include "codec_mp3_binding.h"

#include <cstring>
#include <string>
#include <vector>

#include "errors.h"

namespace chorus {
namespace {

int IntArgument(const Napi::CallbackInfo& info, size_t index, const char* name) {
  if (info.Length() <= index || !info[index].IsNumber()) {
    throw NativeError(kErrInvalidArgument, std::string("Mp3Encoder: ") + name + " must be a number");
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

Napi::Function Mp3EncoderWrap::Define(Napi::Env env) {
  return DefineClass(env, "Mp3Encoder",
                     {InstanceMethod<&Mp3EncoderWrap::Encode>("encode"),
                      InstanceMethod<&Mp3EncoderWrap::Finish>("finish"),
                      InstanceMethod<&Mp3EncoderWrap::Close>("close")});
}

Mp3EncoderWrap::Mp3EncoderWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Mp3EncoderWrap>(info) {
  Guarded(info.Env(), [&] { Open(info); });
}

void Mp3EncoderWrap::Open(const Napi::CallbackInfo& info) {
  Mp3Settings settings{IntArgument(info, 0, "sampleRate"), IntArgument(info, 1, "bitrateKbps"),
                       IntArgument(info, 2, "quality")};
  encoder_ = std::make_unique<Mp3Encoder>(settings);
}

Mp3Encoder& Mp3EncoderWrap::Stream() {
  if (!encoder_) throw NativeError(kErrEncoder, "MP3 encoder used after it ended");
  return *encoder_;
}

Napi::Value Mp3EncoderWrap::Encode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    if (info.Length() < 1 || !info[0].IsTypedArray() ||
        info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int16_array) {
      throw NativeError(kErrInvalidArgument, "Mp3Encoder.encode: pcm must be an Int16Array");
    }
    Napi::Int16Array pcm = info[0].As<Napi::Int16Array>();
    return ToJs(env, Stream().Encode(pcm.Data(), pcm.ElementLength()));
  });
}

Napi::Value Mp3EncoderWrap::Finish(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  return Guarded(env, [&]() -> Napi::Value {
    std::vector<uint8_t> rest = Stream().Finish();
    encoder_.reset();
    return ToJs(env, rest);
  });
}

Napi::Value Mp3EncoderWrap::Close(const Napi::CallbackInfo& info) {
  return Guarded(info.Env(), [&]() -> Napi::Value {
    encoder_.reset();
    return info.Env().Undefined();
  });
}

}  // namespace chorus
