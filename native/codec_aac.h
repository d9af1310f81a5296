// AAC-LC encoding with FFmpeg's native AAC encoder (libavcodec's "aac",
// LGPL-2.1-or-later, with its "fast" coder), loaded at run time
// (avcodec_runtime.h). One AacEncoder
// is one stream: 16-bit mono PCM in, ADTS frames out (codec_adts.h), each
// frame as soon as the encoder has made it. FFmpeg encodes in frames of 1024
// samples and holds one frame back for its look-ahead; the samples of a
// partial frame wait here until it is full or the stream ends.
//
// Threads: an AacEncoder belongs to one thread at a time. libavcodec keeps a
// stream's state in its own AVCodecContext and guards the tables its encoders
// share itself, so streams on different threads encode in parallel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" {
struct AVCodecContext;
struct AVFrame;
struct AVPacket;
}

namespace chorus {

struct AvcodecApi;

struct AacSettings {
  int sample_rate;  // a rate ADTS has an index for (codec_adts.h), 8000 … 96000
  int bitrate;      // bits per second; FFmpeg lowers what a frame cannot hold
};

class AacEncoder {
 public:
  // Throws NativeError(kErrAvcodecLoad) if libavcodec is not loaded,
  // NativeError(kErrEncoder) if it has no AAC encoder or refuses the settings.
  explicit AacEncoder(const AacSettings& settings);
  ~AacEncoder();
  AacEncoder(const AacEncoder&) = delete;
  AacEncoder& operator=(const AacEncoder&) = delete;

  // Encodes `count` samples; returns the ADTS frames completed so far.
  std::vector<uint8_t> Encode(const int16_t* samples, size_t count);
  // Encodes the partial last frame, drains the encoder's look-ahead, then
  // frees the stream.
  std::vector<uint8_t> Finish();
  // Frees the stream now (idempotent); later calls throw.
  void Close();

 private:
  void Open(const AacSettings& settings);
  // Hands the frame's `filled_` samples (or, with `end`, the end of the
  // stream) to the encoder and appends every packet it completes.
  void Send(bool end, std::vector<uint8_t>& out);
  void Drain(bool end, std::vector<uint8_t>& out);
  void Check(int status, const char* what) const;

  const AvcodecApi* api_;
  AVCodecContext* context_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* packet_ = nullptr;
  int sample_rate_ = 0;
  int frame_size_ = 0;
  int filled_ = 0;
  int64_t next_pts_ = 0;
};

}  // namespace chorus
