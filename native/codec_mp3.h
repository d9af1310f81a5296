// MP3 encoding with LAME (libmp3lame 3.100, vendored; see
// scripts/fetch-native-deps.sh). One Mp3Encoder is one stream: 16-bit mono
// PCM in, whole MPEG frames out, constant bit rate, no Xing/LAME tag (a
// stream cannot seek back to fill one in) and no ID3 tag.
//
// Threads: an Mp3Encoder belongs to one thread at a time (LAME keeps a
// stream's state in its own lame_global_flags). But setting a stream up
// (lame_init, lame_init_params) rewrites tables LAME keeps in static storage
// (quantiser powers, a log table) that every stream's encoding reads. So a
// process-wide reader-writer lock guards them: set-up takes it exclusively
// (rare, well under a millisecond), Encode and Finish share it, and streams
// on different threads still encode in parallel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

struct lame_global_struct;

namespace chorus {

struct Mp3Settings {
  int sample_rate;   // an MPEG rate: 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000
  int bitrate_kbps;  // a Layer III bit rate (8 … 320)
  int quality;       // LAME's algorithm quality: 0 (slowest) … 9 (fastest)
};

class Mp3Encoder {
 public:
  explicit Mp3Encoder(const Mp3Settings& settings);
  ~Mp3Encoder();
  Mp3Encoder(const Mp3Encoder&) = delete;
  Mp3Encoder& operator=(const Mp3Encoder&) = delete;

  // Encodes `count` samples; returns the bytes of the frames completed so far.
  std::vector<uint8_t> Encode(const int16_t* samples, size_t count);
  // Pads and encodes what LAME holds back, then frees the stream.
  std::vector<uint8_t> Finish();
  // Frees the stream now (idempotent); later calls throw.
  void Close();

 private:
  lame_global_struct* lame_ = nullptr;
};

}  // namespace chorus
