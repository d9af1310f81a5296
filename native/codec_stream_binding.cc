#include "codec_stream_binding.h"

#include <cstring>
#include <string>

namespace chorus {

int CodecIntArgument(const Napi::CallbackInfo& info, size_t index, const char* codec, const char* name) {
  if (info.Length() <= index || !info[index].IsNumber()) {
    throw NativeError(kErrInvalidArgument, std::string(codec) + ": " + name + " must be a number");
  }
  return info[index].As<Napi::Number>().Int32Value();
}

Napi::Uint8Array CodecBytesToJs(Napi::Env env, const std::vector<uint8_t>& bytes) {
  Napi::ArrayBuffer buffer = Napi::ArrayBuffer::New(env, bytes.size());
  if (!bytes.empty()) std::memcpy(buffer.Data(), bytes.data(), bytes.size());
  return Napi::Uint8Array::New(env, bytes.size(), buffer, 0);
}

Napi::Int16Array CodecPcmArgument(const Napi::CallbackInfo& info, const char* codec) {
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int16_array) {
    throw NativeError(kErrInvalidArgument, std::string(codec) + ".encode: pcm must be an Int16Array");
  }
  return info[0].As<Napi::Int16Array>();
}

}  // namespace chorus
