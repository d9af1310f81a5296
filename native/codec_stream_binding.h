// The JS face every streaming encoder shares (MP3, AAC): an object that owns
// one native stream, opened from the constructor's arguments, fed 16-bit
// PCM and finished or closed once. Synchronous; every call on the JS thread
// that made it (an encoder worker thread):
//   encoder.encode(pcm: Int16Array) -> Uint8Array: the frames complete now
//     (often empty), in a buffer of their own.
//   encoder.finish() -> Uint8Array: the rest; the stream is freed, also when
//     finishing fails.
//   encoder.close(): frees the stream without output.
// An ended stream refuses further calls (ERR_ENCODER); a stream the JS side
// drops is freed by its finalizer, also when its worker thread stops.
//
// A codec is a struct with `Stream` (its class with Encode(const int16_t*,
// size_t) and Finish(), both returning std::vector<uint8_t>), `kClass` (the
// JS class name), `kEnded` (the message for a call after the end) and
// `static std::unique_ptr<Stream> Open(const Napi::CallbackInfo&)`.
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "errors.h"

namespace chorus {

// Constructor argument `index` as an int; ERR_INVALID_ARGUMENT naming the
// class and the argument when it is not a number.
int CodecIntArgument(const Napi::CallbackInfo& info, size_t index, const char* codec, const char* name);

// A Uint8Array over an ArrayBuffer of exactly these bytes, so the encoder
// worker can transfer it rather than copy it.
Napi::Uint8Array CodecBytesToJs(Napi::Env env, const std::vector<uint8_t>& bytes);

// The PCM argument of encode(); ERR_INVALID_ARGUMENT unless an Int16Array.
Napi::Int16Array CodecPcmArgument(const Napi::CallbackInfo& info, const char* codec);

template <typename Codec>
class StreamEncoderWrap : public Napi::ObjectWrap<StreamEncoderWrap<Codec>> {
  using Wrap = StreamEncoderWrap<Codec>;

 public:
  static Napi::Function Define(Napi::Env env) {
    return Wrap::DefineClass(env, Codec::kClass,
                             {Wrap::template InstanceMethod<&Wrap::Encode>("encode"),
                              Wrap::template InstanceMethod<&Wrap::Finish>("finish"),
                              Wrap::template InstanceMethod<&Wrap::Close>("close")});
  }

  explicit StreamEncoderWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Wrap>(info) {
    Guarded(info.Env(), [&] { stream_ = Codec::Open(info); });
  }

  // The finalizer (garbage collection, or the environment's teardown when a
  // worker thread stops): nothing may escape it, no JS frame is there to catch.
  ~StreamEncoderWrap() override {
    try {
      stream_.reset();
    } catch (...) {
    }
  }

 private:
  Napi::Value Encode(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guarded(env, [&]() -> Napi::Value {
      Napi::Int16Array pcm = CodecPcmArgument(info, Codec::kClass);
      return CodecBytesToJs(env, Stream().Encode(pcm.Data(), pcm.ElementLength()));
    });
  }

  Napi::Value Finish(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return Guarded(env, [&]() -> Napi::Value {
      // Ended whatever happens: a stream that failed to finish is not reused.
      std::unique_ptr<typename Codec::Stream> ending = std::move(stream_);
      if (!ending) throw NativeError(kErrEncoder, Codec::kEnded);
      return CodecBytesToJs(env, ending->Finish());
    });
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    return Guarded(info.Env(), [&]() -> Napi::Value {
      stream_.reset();
      return info.Env().Undefined();
    });
  }

  typename Codec::Stream& Stream() {
    if (!stream_) throw NativeError(kErrEncoder, Codec::kEnded);
    return *stream_;
  }

  std::unique_ptr<typename Codec::Stream> stream_;
};

}  // namespace chorus
