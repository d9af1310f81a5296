// Loads FFmpeg's libavcodec at run time with dlopen, as ONNX Runtime is
// loaded (ort_runtime.h): the addon has no link-time dependency on FFmpeg, so
// it builds, loads and serves every other format where FFmpeg is missing, and
// only AAC needs it. The declarations come from the pinned headers of
// FFmpeg 5.1 (Debian 12's libavcodec59, see scripts/fetch-native-deps.sh);
// the structures they describe (AVCodecContext, AVFrame, AVPacket) keep their
// layout only within one major version, so a library of any other major is
// refused before any of its functions is called.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
}

#include <string>

namespace chorus {

// The FFmpeg functions the AAC encoder calls, resolved from the loaded
// library. Never call FFmpeg's functions by name elsewhere: a direct call
// would make the addon depend on libavcodec at link time.
struct AvcodecApi {
  decltype(&::avcodec_find_encoder_by_name) find_encoder_by_name;
  decltype(&::avcodec_alloc_context3) alloc_context3;
  decltype(&::avcodec_open2) open2;
  decltype(&::avcodec_free_context) free_context;
  decltype(&::avcodec_send_frame) send_frame;
  decltype(&::avcodec_receive_packet) receive_packet;
  decltype(&::av_packet_alloc) packet_alloc;
  decltype(&::av_packet_free) packet_free;
  decltype(&::av_packet_unref) packet_unref;
  decltype(&::av_frame_alloc) frame_alloc;
  decltype(&::av_frame_free) frame_free;
  decltype(&::av_frame_get_buffer) frame_get_buffer;
  decltype(&::av_frame_make_writable) frame_make_writable;
  decltype(&::av_channel_layout_default) channel_layout_default;
  decltype(&::av_opt_set) opt_set;
  decltype(&::av_strerror) strerror;
};

struct AvcodecInfo {
  std::string version;  // libavcodec's, e.g. "59.37.100"
  std::string license;  // as the library's build reports it
};

// Loads the library at `path` (a file, or a soname the dynamic loader
// searches for) once per process, checks that libavcodec and the libavutil it
// brings are the major versions of our headers, resolves AvcodecApi and
// silences FFmpeg's own logging (its errors come back as return codes, and
// stderr is the service's log). Later calls with the same path return the
// same info; another path after a successful load is an error. A failed load
// leaves nothing loaded, so it may be retried.
// Thread safety: safe from any thread (serialised by a process-wide mutex).
// Throws NativeError(kErrAvcodecLoad) with the path and the cause.
AvcodecInfo LoadAvcodecRuntime(const std::string& path);

// The loaded library's functions.
// Thread safety: any thread; the table never changes once loaded.
// Throws NativeError(kErrAvcodecLoad) when LoadAvcodecRuntime has not succeeded.
const AvcodecApi& Avcodec();

// FFmpeg's text for an error code (e.g. "Invalid argument").
std::string AvcodecErrorText(const AvcodecApi& api, int code);

}  // namespace chorus
