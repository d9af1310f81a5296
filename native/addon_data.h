// Per-environment state of the addon (one per main thread or worker thread
// that loads it), freed by N-API when that environment shuts down.
#pragma once

#include <napi.h>

#include <memory>
#include <mutex>
#include <set>

#include "cancel.h"

namespace chorus {

// Inference runs in flight for one environment. Shared with the async
// workers so it outlives the environment if a run finishes after teardown.
class RunRegistry {
 public:
  void Add(const std::shared_ptr<CancelState>& run);
  void Remove(const std::shared_ptr<CancelState>& run);
  // Terminates every run in flight: used when the environment shuts down
  // (a worker thread being terminated), so its threads are not kept busy.
  void CancelAll();

 private:
  std::mutex mutex_;
  std::set<std::shared_ptr<CancelState>> runs_;
};

struct AddonData {
  Napi::FunctionReference voice_constructor;
  Napi::FunctionReference cancel_token_constructor;
  Napi::FunctionReference phoneme_id_map_constructor;
  std::shared_ptr<RunRegistry> runs = std::make_shared<RunRegistry>();
};

inline AddonData* GetAddonData(Napi::Env env) { return env.GetInstanceData<AddonData>(); }

}  // namespace chorus
