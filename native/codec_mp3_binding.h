// JS face of the MP3 encoder (codec_mp3.h); synchronous, all calls on the JS
// thread that made the object (an encoder worker thread):
//   new Mp3Encoder(sampleRate, bitrateKbps, quality): a LAME stream, 16-bit
//     mono at an MPEG rate, constant bit rate, quality 0 (best) … 9 (fastest).
//   encoder.encode(pcm: Int16Array) -> Uint8Array: the frames complete now
//     (often empty), in a buffer of their own.
//   encoder.finish() -> Uint8Array: the rest; the stream is freed.
//   encoder.close(): frees the stream without output.
// Failures throw an Error with code ERR_ENCODER (or ERR_INVALID_ARGUMENT for
// arguments of the wrong type); an ended stream refuses further calls.
#pragma once

#include <napi.h>

#include <memory>

#include "codec_mp3.h"

namespace chorus {

class Mp3EncoderWrap : public Napi::ObjectWrap<Mp3EncoderWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit Mp3EncoderWrap(const Napi::CallbackInfo& info);

 private:
  void Open(const Napi::CallbackInfo& info);
  Napi::Value Encode(const Napi::CallbackInfo& info);
  Napi::Value Finish(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  Mp3Encoder& Stream();

  std::unique_ptr<Mp3Encoder> encoder_;
};

}  // namespace chorus
