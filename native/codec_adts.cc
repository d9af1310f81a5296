#include "codec_adts.h"

#include <string>

#include "errors.h"

namespace chorus {
namespace {

// The sampling frequencies of ISO/IEC 14496-3, in index order.
constexpr int kRates[] = {96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350};
// audioObjectType 2 (AAC Low Complexity), written as its index minus one.
constexpr unsigned kProfileLc = 1;
// All ones: a variable bit rate stream, no buffer fullness given.
constexpr unsigned kFullnessVbr = 0x7FF;
constexpr size_t kMaxFrameLength = (1u << 13) - 1;

}  // namespace

int AdtsRateIndex(int sample_rate) {
  for (int i = 0; i < static_cast<int>(sizeof kRates / sizeof kRates[0]); i++) {
    if (kRates[i] == sample_rate) return i;
  }
  return -1;
}

void AppendAdtsFrame(std::vector<uint8_t>& out, int sample_rate, int channels, const uint8_t* frame,
                     size_t size) {
  const int index = AdtsRateIndex(sample_rate);
  if (index < 0) throw NativeError(kErrEncoder, "ADTS has no index for " + std::to_string(sample_rate) + " Hz");
  if (channels < 1 || channels > 7) throw NativeError(kErrEncoder, "ADTS cannot carry " + std::to_string(channels) + " channels");
  const size_t length = kAdtsHeaderBytes + size;
  if (length > kMaxFrameLength) {
    throw NativeError(kErrEncoder, "An AAC frame of " + std::to_string(size) + " bytes is too long for ADTS");
  }
  const unsigned rate = static_cast<unsigned>(index);
  const unsigned layout = static_cast<unsigned>(channels);
  const uint8_t header[kAdtsHeaderBytes] = {
      0xFF,
      // Sync word's last 4 bits, MPEG-4, layer 0, no CRC.
      0xF1,
      static_cast<uint8_t>((kProfileLc << 6) | (rate << 2) | (layout >> 2)),
      static_cast<uint8_t>(((layout & 3) << 6) | ((length >> 11) & 3)),
      static_cast<uint8_t>((length >> 3) & 0xFF),
      static_cast<uint8_t>(((length & 7) << 5) | (kFullnessVbr >> 6)),
      // The rest of the fullness; one raw data block in the frame (0 + 1).
      static_cast<uint8_t>((kFullnessVbr & 0x3F) << 2),
  };
  out.insert(out.end(), header, header + kAdtsHeaderBytes);
  out.insert(out.end(), frame, frame + size);
}

}  // namespace chorus
