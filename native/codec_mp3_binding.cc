#include "codec_mp3_binding.h"

namespace chorus {

std::unique_ptr<Mp3Encoder> Mp3Codec::Open(const Napi::CallbackInfo& info) {
  Mp3Settings settings{CodecIntArgument(info, 0, kClass, "sampleRate"), CodecIntArgument(info, 1, kClass, "bitrateKbps"),
                       CodecIntArgument(info, 2, kClass, "quality")};
  return std::make_unique<Mp3Encoder>(settings);
}

}  // namespace chorus
