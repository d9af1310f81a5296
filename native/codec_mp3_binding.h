// JS face of the MP3 encoder (codec_mp3.h), a StreamEncoderWrap
// (codec_stream_binding.h: encode, finish, close; synchronous, on the JS
// thread that made it, an encoder worker thread):
//   new Mp3Encoder(sampleRate, bitrateKbps, quality): a LAME stream, 16-bit
//     mono at an MPEG rate, constant bit rate, quality 0 (best) … 9 (fastest).
// Failures throw an Error with code ERR_ENCODER (or ERR_INVALID_ARGUMENT for
// arguments of the wrong type).
#pragma once

#include <napi.h>

#include <memory>

#include "codec_mp3.h"
#include "codec_stream_binding.h"

namespace chorus {

struct Mp3Codec {
  using Stream = Mp3Encoder;
  static constexpr const char* kClass = "Mp3Encoder";
  static constexpr const char* kEnded = "MP3 encoder used after it ended";
  static std::unique_ptr<Mp3Encoder> Open(const Napi::CallbackInfo& info);
};

using Mp3EncoderWrap = StreamEncoderWrap<Mp3Codec>;

}  // namespace chorus
