#include "avcodec_runtime.h"

#include <dlfcn.h>

#include <mutex>

#include "errors.h"

namespace chorus {
namespace {

std::mutex g_mutex;
std::string g_loaded_path;
AvcodecInfo g_info;
// Set once, under g_mutex, and never changed after: readers on any thread
// see either null or the complete table. The library is never unloaded (a
// stream on another thread may be using it; unloading at exit gains nothing).
const AvcodecApi* g_api = nullptr;

std::string VersionText(unsigned version) {
  return std::to_string(version >> 16) + "." + std::to_string((version >> 8) & 0xFF) + "." +
         std::to_string(version & 0xFF);
}

// dlsym on libavcodec's handle also finds the functions of the libraries it
// depends on (libavutil): exactly the ones this libavcodec was built with.
class Resolver {
 public:
  Resolver(void* handle, const std::string& path) : handle_(handle), path_(path) {}

  template <typename Fn>
  void operator()(Fn& target, const char* name) const {
    void* symbol = dlsym(handle_, name);
    if (symbol == nullptr) {
      throw NativeError(kErrAvcodecLoad, std::string("No ") + name + " in " + path_ +
                                             ": not a libavcodec this addon can use");
    }
    target = reinterpret_cast<Fn>(symbol);
  }

 private:
  void* handle_;
  const std::string& path_;
};

// Refuses a library whose major version differs from the headers': its
// structures may be laid out differently.
void CheckMajor(const Resolver& resolve, const char* library, const char* function, unsigned built_major,
                const std::string& path) {
  unsigned (*version)(void) = nullptr;
  resolve(version, function);
  const unsigned found = version();
  if ((found >> 16) != built_major) {
    throw NativeError(kErrAvcodecLoad, std::string(library) + " " + VersionText(found) + " at " + path +
                                           " is not supported: this addon is built for " + library + " " +
                                           std::to_string(built_major) +
                                           ".x (FFmpeg 5.1, Debian 12's libavcodec59) and refuses another "
                                           "major version, whose structures differ");
  }
}

AvcodecApi ResolveApi(const Resolver& resolve) {
  AvcodecApi api{};
  resolve(api.find_encoder_by_name, "avcodec_find_encoder_by_name");
  resolve(api.alloc_context3, "avcodec_alloc_context3");
  resolve(api.open2, "avcodec_open2");
  resolve(api.free_context, "avcodec_free_context");
  resolve(api.send_frame, "avcodec_send_frame");
  resolve(api.receive_packet, "avcodec_receive_packet");
  resolve(api.packet_alloc, "av_packet_alloc");
  resolve(api.packet_free, "av_packet_free");
  resolve(api.packet_unref, "av_packet_unref");
  resolve(api.frame_alloc, "av_frame_alloc");
  resolve(api.frame_free, "av_frame_free");
  resolve(api.frame_get_buffer, "av_frame_get_buffer");
  resolve(api.frame_make_writable, "av_frame_make_writable");
  resolve(api.channel_layout_default, "av_channel_layout_default");
  resolve(api.opt_set, "av_opt_set");
  resolve(api.strerror, "av_strerror");
  return api;
}

}  // namespace

AvcodecInfo LoadAvcodecRuntime(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_api != nullptr) {
    if (path != g_loaded_path) {
      throw NativeError(kErrAvcodecLoad, "libavcodec is already loaded from " + g_loaded_path +
                                             " and cannot be loaded again from " + path);
    }
    return g_info;
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    throw NativeError(kErrAvcodecLoad, "Cannot load FFmpeg's libavcodec from " + path + ": " +
                                           (reason != nullptr ? reason : "unknown dlopen error"));
  }
  try {
    const Resolver resolve(handle, path);
    CheckMajor(resolve, "libavcodec", "avcodec_version", LIBAVCODEC_VERSION_MAJOR, path);
    CheckMajor(resolve, "libavutil", "avutil_version", LIBAVUTIL_VERSION_MAJOR, path);
    const AvcodecApi api = ResolveApi(resolve);
    const char* (*license)(void) = nullptr;
    resolve(license, "avcodec_license");
    unsigned (*version)(void) = nullptr;
    resolve(version, "avcodec_version");
    void (*set_log_level)(int) = nullptr;
    resolve(set_log_level, "av_log_set_level");
    set_log_level(AV_LOG_QUIET);
    g_info = AvcodecInfo{VersionText(version()), license()};
    g_loaded_path = path;
    g_api = new AvcodecApi(api);
    return g_info;
  } catch (...) {
    dlclose(handle);
    throw;
  }
}

const AvcodecApi& Avcodec() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_api == nullptr) throw NativeError(kErrAvcodecLoad, "FFmpeg's libavcodec has not been loaded");
  return *g_api;
}

std::string AvcodecErrorText(const AvcodecApi& api, int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  if (api.strerror(code, text, sizeof text) < 0) return "error " + std::to_string(code);
  return text;
}

}  // namespace chorus
