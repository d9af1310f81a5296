#include "codec_aac.h"

#include <string>

#include "avcodec_runtime.h"
#include "codec_adts.h"
#include "errors.h"

namespace chorus {

AacEncoder::AacEncoder(const AacSettings& settings) : api_(&Avcodec()) {
  try {
    Open(settings);
  } catch (...) {
    Close();
    throw;
  }
}

AacEncoder::~AacEncoder() { Close(); }

void AacEncoder::Check(int status, const char* what) const {
  if (status < 0) {
    throw NativeError(kErrEncoder, std::string("FFmpeg AAC: ") + what + " failed (" + AvcodecErrorText(*api_, status) + ")");
  }
}

void AacEncoder::Open(const AacSettings& settings) {
  if (AdtsRateIndex(settings.sample_rate) < 0) {
    throw NativeError(kErrEncoder, "AAC cannot be encoded at " + std::to_string(settings.sample_rate) + " Hz");
  }
  if (settings.bitrate <= 0) throw NativeError(kErrEncoder, "AAC needs a positive bit rate");
  // By name: FFmpeg's own encoder, whatever other AAC encoders a build has.
  const AVCodec* codec = api_->find_encoder_by_name("aac");
  if (codec == nullptr) throw NativeError(kErrEncoder, "This libavcodec has no AAC encoder");
  context_ = api_->alloc_context3(codec);
  frame_ = api_->frame_alloc();
  packet_ = api_->packet_alloc();
  if (context_ == nullptr || frame_ == nullptr || packet_ == nullptr) {
    throw NativeError(kErrOutOfMemory, "FFmpeg AAC: cannot allocate an encoder");
  }
  sample_rate_ = settings.sample_rate;
  context_->sample_fmt = AV_SAMPLE_FMT_FLTP;
  context_->sample_rate = settings.sample_rate;
  context_->bit_rate = settings.bitrate;
  context_->profile = FF_PROFILE_AAC_LOW;
  context_->time_base = AVRational{1, settings.sample_rate};
  // One stream, one thread: the encoder worker is the parallelism.
  context_->thread_count = 1;
  api_->channel_layout_default(&context_->ch_layout, 1);
  // FFmpeg's "fast" quantiser search rather than its default "twoloop":
  // several times cheaper, and on speech no further from the input by
  // log-spectral distance (docs/audio.md, AAC).
  Check(api_->opt_set(context_->priv_data, "aac_coder", "fast", 0), "choosing the fast coder");
  Check(api_->open2(context_, codec, nullptr), "opening the encoder");
  frame_size_ = context_->frame_size;
  if (frame_size_ <= 0) throw NativeError(kErrEncoder, "FFmpeg AAC: the encoder reports no frame size");
  frame_->format = AV_SAMPLE_FMT_FLTP;
  frame_->sample_rate = settings.sample_rate;
  frame_->nb_samples = frame_size_;
  api_->channel_layout_default(&frame_->ch_layout, 1);
  Check(api_->frame_get_buffer(frame_, 0), "allocating a frame");
}

void AacEncoder::Close() {
  if (api_ == nullptr) return;
  // FFmpeg's free functions take the address and clear the pointer; null is a no-op.
  api_->packet_free(&packet_);
  api_->frame_free(&frame_);
  api_->free_context(&context_);
}

std::vector<uint8_t> AacEncoder::Encode(const int16_t* samples, size_t count) {
  if (context_ == nullptr) throw NativeError(kErrEncoder, "AAC encoder used after it ended");
  std::vector<uint8_t> out;
  for (size_t done = 0; done < count;) {
    if (filled_ == 0) {
      // The encoder may still hold a reference to the last frame's buffer:
      // write into a buffer of our own.
      Check(api_->frame_make_writable(frame_), "preparing a frame");
    }
    auto* plane = reinterpret_cast<float*>(frame_->data[0]);
    const size_t room = static_cast<size_t>(frame_size_ - filled_);
    const size_t n = count - done < room ? count - done : room;
    for (size_t i = 0; i < n; i++) plane[filled_ + i] = static_cast<float>(samples[done + i]) / 32768.0f;
    filled_ += static_cast<int>(n);
    done += n;
    if (filled_ == frame_size_) Send(false, out);
  }
  return out;
}

std::vector<uint8_t> AacEncoder::Finish() {
  if (context_ == nullptr) throw NativeError(kErrEncoder, "AAC encoder used after it ended");
  std::vector<uint8_t> out;
  try {
    // FFmpeg's encoder takes a shorter last frame and pads it itself.
    if (filled_ > 0) Send(false, out);
    Send(true, out);
  } catch (...) {
    Close();
    throw;
  }
  Close();
  return out;
}

void AacEncoder::Send(bool end, std::vector<uint8_t>& out) {
  if (end) {
    Check(api_->send_frame(context_, nullptr), "ending the stream");
  } else {
    frame_->nb_samples = filled_;
    frame_->pts = next_pts_;
    next_pts_ += filled_;
    filled_ = 0;
    Check(api_->send_frame(context_, frame_), "encoding");
    frame_->nb_samples = frame_size_;
  }
  Drain(end, out);
}

void AacEncoder::Drain(bool end, std::vector<uint8_t>& out) {
  for (;;) {
    const int status = api_->receive_packet(context_, packet_);
    // It wants more input, or (at the end) has given everything.
    if (status == AVERROR(EAGAIN) && !end) return;
    if (status == AVERROR_EOF && end) return;
    Check(status, "taking a frame");
    try {
      AppendAdtsFrame(out, sample_rate_, 1, packet_->data, static_cast<size_t>(packet_->size));
    } catch (...) {
      api_->packet_unref(packet_);
      throw;
    }
    api_->packet_unref(packet_);
  }
}

}  // namespace chorus
