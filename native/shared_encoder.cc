#include "shared_encoder.h"

#include <map>
#include <mutex>

namespace chorus {
namespace {

std::mutex g_mutex;
// Never freed: voices on any thread may look templates up until the process exits.
auto* g_encoders = new std::map<std::string, std::weak_ptr<Ort::Session>>();

}  // namespace

std::shared_ptr<Ort::Session> FindOrCreateSharedEncoder(const std::string& key,
                                                        const std::function<std::unique_ptr<Ort::Session>()>& make) {
  // Held while creating: voice loads are serialised anyway (voice.cc).
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_encoders->find(key);
  if (it != g_encoders->end()) {
    if (std::shared_ptr<Ort::Session> session = it->second.lock()) return session;
    g_encoders->erase(it);
  }
  std::shared_ptr<Ort::Session> session = make();
  (*g_encoders)[key] = session;
  return session;
}

}  // namespace chorus
