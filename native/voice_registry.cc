#include "voice_registry.h"

#include <malloc.h>

#include <map>
#include <iterator>
#include <mutex>

namespace chorus {
namespace {

std::mutex g_table_mutex;
std::mutex g_create_mutex;
// Never freed: worker threads may look voices up until the process exits.
auto* g_voices = new std::map<std::string, std::weak_ptr<Voice>>();
// Guarded by g_table_mutex; never freed, as g_voices.
auto* g_claims = new std::map<std::string, const void*>();

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

bool ClaimLoad(const std::string& key, const void* owner) {
  std::lock_guard<std::mutex> lock(g_table_mutex);
  if (FindLocked(key)) return false;
  return g_claims->emplace(key, owner).second;
}

void ReleaseClaim(const std::string& key, const void* owner) {
  std::lock_guard<std::mutex> lock(g_table_mutex);
  auto it = g_claims->find(key);
  if (it != g_claims->end() && it->second == owner) g_claims->erase(it);
}

void ReleaseClaimsOf(const void* owner) {
  std::lock_guard<std::mutex> lock(g_table_mutex);
  for (auto it = g_claims->begin(); it != g_claims->end();) {
    it = it->second == owner ? g_claims->erase(it) : std::next(it);
  }
}

}  // namespace chorus
