// ADTS framing (ISO/IEC 13818-7 and 14496-3, "Audio Data Transport Stream"):
// each raw AAC frame is preceded by a 7-byte header (no CRC) with the stream's
// profile, rate and channels, so a decoder can start reading anywhere and a
// stream needs no container. It is what `.aac` files and OpenAI's `aac`
// answers hold.
//
// Threads: pure functions, safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace chorus {

inline constexpr size_t kAdtsHeaderBytes = 7;

// The ADTS sampling-frequency index of `sample_rate`, or -1 when ADTS has none.
int AdtsRateIndex(int sample_rate);

// Appends one ADTS frame of AAC-LC (`channels` 1..7) to `out`: the header and
// the raw frame. Throws NativeError(kErrEncoder) if the frame is too long for
// ADTS's 13-bit length or the rate has no index.
void AppendAdtsFrame(std::vector<uint8_t>& out, int sample_rate, int channels, const uint8_t* frame,
                     size_t size);

}  // namespace chorus
