// JS face of AAC encoding (codec_aac.h) and of the library it needs
// (avcodec_runtime.h):
//   loadAvcodec(libraryPath) -> { version, license }: loads FFmpeg's
//     libavcodec once per process (any JS thread; later calls with the same
//     path are cheap). Throws an Error with code ERR_AVCODEC_LOAD naming the
//     path and the cause (missing, another major version, not libavcodec).
//   new AacEncoder(sampleRate, bitrate): an AAC-LC stream, 16-bit mono at an
//     ADTS rate, `bitrate` in bits per second; needs loadAvcodec first. A
//     StreamEncoderWrap (codec_stream_binding.h: encode, finish, close;
//     synchronous, on the JS thread that made it, an encoder worker thread).
// Failures throw an Error with code ERR_ENCODER (ERR_AVCODEC_LOAD without the
// library, ERR_INVALID_ARGUMENT for arguments of the wrong type).
#pragma once

#include <napi.h>

#include <memory>

#include "codec_aac.h"
#include "codec_stream_binding.h"

namespace chorus {

Napi::Value LoadAvcodec(const Napi::CallbackInfo& info);

struct AacCodec {
  using Stream = AacEncoder;
  static constexpr const char* kClass = "AacEncoder";
  static constexpr const char* kEnded = "AAC encoder used after it ended";
  static std::unique_ptr<AacEncoder> Open(const Napi::CallbackInfo& info);
};

using AacEncoderWrap = StreamEncoderWrap<AacCodec>;

}  // namespace chorus
