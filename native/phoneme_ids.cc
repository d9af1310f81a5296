#include "phoneme_ids.h"

#include <utility>

namespace chorus {

PhonemeIdMap::PhonemeIdMap(std::unordered_map<char32_t, Ids> map) : map_(std::move(map)) {
  pad_ = map_[U'_'];
  bos_ = map_[U'^'];
  eos_ = map_[U'$'];
}

PhonemeIdMap::Ids PhonemeIdMap::ToIds(const uint32_t* phonemes, size_t count, size_t* missing) const {
  Ids ids;
  ids.reserve(bos_.size() + pad_.size() + count * (1 + pad_.size()) + eos_.size());
  ids.insert(ids.end(), bos_.begin(), bos_.end());
  ids.insert(ids.end(), pad_.begin(), pad_.end());
  size_t skipped = 0;
  for (size_t i = 0; i < count; ++i) {
    auto found = map_.find(static_cast<char32_t>(phonemes[i]));
    if (found == map_.end()) {
      ++skipped;
      continue;
    }
    ids.insert(ids.end(), found->second.begin(), found->second.end());
    ids.insert(ids.end(), pad_.begin(), pad_.end());
  }
  ids.insert(ids.end(), eos_.begin(), eos_.end());
  if (missing != nullptr) *missing = skipped;
  return ids;
}

}  // namespace chorus
