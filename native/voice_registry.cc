#include "voice_registry.h"

#include <malloc.h>

#include <map>
#include <mutex>

namespace chorus {
namespace {

std::mutex g_table_mutex;
std::mutex g_create_mutex;
// Never freed: worker threads may look voices up until the process exits.
auto* g_voices = new std::map<std::string, std::weak_ptr<Voice>>();

std::shared_ptr<Voice> FindLocked(const std::string& key) {
  auto it = g_voices->find(key);
  if (it == g_voices->end()) return nullptr;
  std::shared_ptr<Voice> voice = it->second.lock();
  if (!voice) g_voices->erase(it);
  return voice;
}

}  // namespace

std::shared_ptr<Voice> FindVoice(const std::string& key) {
  std::lock_guard<std::mutex> lock(g_table_mutex);
  return FindLocked(key);
}

std::shared_ptr<Voice> FindOrCreateVoice(const std::string& key, const std::function<std::shared_ptr<Voice>()>& make) {
  if (auto voice = FindVoice(key)) return voice;
  std::lock_guard<std::mutex> create(g_create_mutex);
  if (auto voice = FindVoice(key)) return voice;
  std::shared_ptr<Voice> voice = make();
  // Parsing the model and building the sessions peaks at a few copies of
  // the weights; glibc would keep those freed blocks for ever.
  TrimMemory();
  std::lock_guard<std::mutex> lock(g_table_mutex);
  (*g_voices)[key] = voice;
  return voice;
}

void TrimMemory() { malloc_trim(0); }

}  // namespace chorus
