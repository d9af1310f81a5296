// JS face of AAC encoding (codec_aac.h) and of the library it needs
// (avcodec_runtime.h):
//   loadAvcodec(libraryPath) -> { version, license }: loads FFmpeg's
//     libavcodec once per process (any JS thread; later calls with the same
//     path are cheap). Throws an Error with code ERR_AVCODEC_LOAD naming the
//     path and the cause (missing, another major version, not libavcodec).
//   new AacEncoder(sampleRate, bitrate): an AAC-LC stream, 16-bit mono at an
//     ADTS rate, `bitrate` in bits per second; needs loadAvcodec first.
//     Synchronous, every call on the JS thread that made it (an encoder
//     worker thread).
//   encoder.encode(pcm: Int16Array) -> Uint8Array: the ADTS frames complete
//     now (often empty), in a buffer of their own.
//   encoder.finish() -> Uint8Array: the rest; the stream is freed.
//   encoder.close(): frees the stream without output.
// Failures throw an Error with code ERR_ENCODER (ERR_AVCODEC_LOAD without the
// library, ERR_INVALID_ARGUMENT for arguments of the wrong type); an ended
// stream refuses further calls. A stream the JS side drops is freed by its
// finalizer, also when its worker thread stops.
#pragma once

#include <napi.h>

#include <memory>

#include "codec_aac.h"

namespace chorus {

Napi::Value LoadAvcodec(const Napi::CallbackInfo& info);

class AacEncoderWrap : public Napi::ObjectWrap<AacEncoderWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit AacEncoderWrap(const Napi::CallbackInfo& info);
  ~AacEncoderWrap() override;

 private:
  void Open(const Napi::CallbackInfo& info);
  Napi::Value Encode(const Napi::CallbackInfo& info);
  Napi::Value Finish(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  AacEncoder& Stream();

  std::unique_ptr<AacEncoder> encoder_;
};

}  // namespace chorus
