#include "codec_mp3.h"

#include <lame.h>

#include <mutex>
#include <shared_mutex>
#include <string>

#include "errors.h"

namespace chorus {
namespace {

// Guards LAME's static tables: written by set-up, read by encoding (codec_mp3.h).
std::shared_mutex g_lame_tables;

// LAME's own bound on the output of one call: 1.25 × samples + 7200 bytes.
size_t MaxOutput(size_t samples) { return samples + samples / 4 + 7200; }

void Check(int status, const char* what) {
  if (status < 0) throw NativeError(kErrEncoder, std::string("LAME: ") + what + " failed (" + std::to_string(status) + ")");
}

}  // namespace

Mp3Encoder::Mp3Encoder(const Mp3Settings& settings) {
  std::unique_lock<std::shared_mutex> setup(g_lame_tables);
  lame_ = lame_init();
  if (lame_ == nullptr) throw NativeError(kErrOutOfMemory, "LAME: cannot allocate an encoder");
  try {
    Check(lame_set_num_channels(lame_, 1), "setting the channel count");
    Check(lame_set_mode(lame_, MONO), "setting mono");
    Check(lame_set_in_samplerate(lame_, settings.sample_rate), "setting the input rate");
    Check(lame_set_out_samplerate(lame_, settings.sample_rate), "setting the output rate");
    Check(lame_set_VBR(lame_, vbr_off), "choosing constant bit rate");
    Check(lame_set_brate(lame_, settings.bitrate_kbps), "setting the bit rate");
    Check(lame_set_quality(lame_, settings.quality), "setting the quality");
    Check(lame_set_bWriteVbrTag(lame_, 0), "turning off the Xing tag");
    lame_set_write_id3tag_automatic(lame_, 0);
    Check(lame_init_params(lame_), "checking the settings");
  } catch (...) {
    lame_close(lame_);
    throw;
  }
}

Mp3Encoder::~Mp3Encoder() { Close(); }

void Mp3Encoder::Close() {
  if (lame_ != nullptr) lame_close(lame_);
  lame_ = nullptr;
}

std::vector<uint8_t> Mp3Encoder::Encode(const int16_t* samples, size_t count) {
  if (lame_ == nullptr) throw NativeError(kErrEncoder, "MP3 encoder used after it ended");
  std::shared_lock<std::shared_mutex> reading(g_lame_tables);
  std::vector<uint8_t> out;
  // One call per block keeps LAME's int sample count and the buffer bounded.
  constexpr size_t kBlock = 1 << 16;
  for (size_t done = 0; done < count;) {
    const size_t n = count - done < kBlock ? count - done : kBlock;
    const size_t start = out.size();
    out.resize(start + MaxOutput(n));
    // Mono: LAME reads only the left channel.
    const int written = lame_encode_buffer(lame_, samples + done, samples + done, static_cast<int>(n),
                                           out.data() + start, static_cast<int>(out.size() - start));
    Check(written, "encoding");
    out.resize(start + static_cast<size_t>(written));
    done += n;
  }
  return out;
}

std::vector<uint8_t> Mp3Encoder::Finish() {
  if (lame_ == nullptr) throw NativeError(kErrEncoder, "MP3 encoder used after it ended");
  std::vector<uint8_t> out(MaxOutput(0));
  int written = 0;
  {
    std::shared_lock<std::shared_mutex> reading(g_lame_tables);
    written = lame_encode_flush(lame_, out.data(), static_cast<int>(out.size()));
  }
  Close();
  Check(written, "flushing");
  out.resize(static_cast<size_t>(written));
  return out;
}

}  // namespace chorus
