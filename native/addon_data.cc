#include "addon_data.h"

namespace chorus {

void RunRegistry::Add(const std::shared_ptr<CancelState>& run) {
  std::lock_guard<std::mutex> lock(mutex_);
  runs_.insert(run);
}

void RunRegistry::Remove(const std::shared_ptr<CancelState>& run) {
  std::lock_guard<std::mutex> lock(mutex_);
  runs_.erase(run);
}

void RunRegistry::CancelAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& run : runs_) run->Cancel();
}

}  // namespace chorus
