#include "ort_runtime.h"

#include <dlfcn.h>
#include <stdlib.h>

#include <mutex>

#include "errors.h"

namespace chorus {
namespace {

std::mutex g_mutex;
std::string g_loaded_path;
std::string g_version;
// Never freed: the environment must outlive every session of every thread,
// and unloading ORT at process exit gains nothing.
Ort::Env* g_env = nullptr;

}  // namespace

void LoadOrtRuntime(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_env != nullptr) {
    if (path != g_loaded_path) {
      throw NativeError(kErrOrtLoad, "ONNX Runtime is already loaded from " + g_loaded_path +
                                         " and cannot be loaded again from " + path);
    }
    return;
  }
  // ONNX Runtime 1.30 collects telemetry on Linux for upload (and writes a
  // device id under ~/.cache unless told not to): off for every process that
  // loads it, not only those started by the chorus command. A value the user
  // set is kept.
  setenv("ORT_DISABLE_TELEMETRY", "1", 0);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    throw NativeError(kErrOrtLoad, "Cannot load ONNX Runtime from " + path + ": " +
                                       (reason != nullptr ? reason : "unknown dlopen error"));
  }
  using GetApiBaseFn = const OrtApiBase* (*)();
  auto get_api_base = reinterpret_cast<GetApiBaseFn>(dlsym(handle, "OrtGetApiBase"));
  if (get_api_base == nullptr) {
    dlclose(handle);
    throw NativeError(kErrOrtLoad, "No OrtGetApiBase symbol in " + path);
  }
  const OrtApiBase* base = get_api_base();
  const OrtApi* api = base != nullptr ? base->GetApi(ORT_API_VERSION) : nullptr;
  if (api == nullptr) {
    const char* version = base != nullptr ? base->GetVersionString() : "unknown";
    dlclose(handle);
    throw NativeError(kErrOrtLoad, "ONNX Runtime " + std::string(version) + " at " + path +
                                       " does not provide API version " +
                                       std::to_string(ORT_API_VERSION));
  }
  Ort::InitApi(api);
  g_version = base->GetVersionString();
  auto* env = new Ort::Env(ORT_LOGGING_LEVEL_WARNING, "chorus");
  try {
    // And its telemetry events, through the API as well.
    env->DisableTelemetryEvents();
    // One CPU arena for every session of the process (sessions opt in with
    // session.use_env_allocators): voices share activation memory instead of
    // each keeping its own peak, and the arena grows by what is asked
    // (kSameAsRequested), not to the next power of two, since every sentence
    // has another length.
    Ort::MemoryInfo cpu = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    Ort::ArenaCfg arena(0, 1, -1, -1);
    env->CreateAndRegisterAllocator(cpu, arena);
  } catch (const Ort::Exception& e) {
    delete env;
    throw NativeError(kErrOrtLoad, std::string("Cannot set up ONNX Runtime's environment: ") + e.what());
  }
  g_env = env;
  g_loaded_path = path;
}

Ort::Env& OrtEnvironment() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_env == nullptr) throw NativeError(kErrOrtLoad, "ONNX Runtime has not been loaded");
  return *g_env;
}

bool OrtRuntimeLoaded() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_env != nullptr;
}

std::string OrtVersion() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_version;
}

}  // namespace chorus
