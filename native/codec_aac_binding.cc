#include "codec_aac_binding.h"

#include "avcodec_runtime.h"
#include "errors.h"

namespace chorus {

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

std::unique_ptr<AacEncoder> AacCodec::Open(const Napi::CallbackInfo& info) {
  AacSettings settings{CodecIntArgument(info, 0, kClass, "sampleRate"), CodecIntArgument(info, 1, kClass, "bitrate")};
  return std::make_unique<AacEncoder>(settings);
}

}  // namespace chorus
