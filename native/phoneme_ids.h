// Piper's phoneme-to-id rules for one voice's phoneme_id_map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace chorus {

class PhonemeIdMap {
 public:
  using Ids = std::vector<int64_t>;

  // `map` holds the ids of every single-codepoint phoneme. The map must
  // contain the pad "_", BOS "^" and EOS "$" (checked by the caller).
  explicit PhonemeIdMap(std::unordered_map<char32_t, Ids> map);

  // ids(^), ids(_), then for each phoneme ids(phoneme) + ids(_), then ids($).
  // Phonemes missing from the map are skipped and counted in `missing`.
  // Thread safety: const; safe from any number of threads.
  Ids ToIds(const uint32_t* phonemes, size_t count, size_t* missing) const;

  bool Has(char32_t phoneme) const { return map_.count(phoneme) != 0; }

 private:
  std::unordered_map<char32_t, Ids> map_;
  Ids pad_;
  Ids bos_;
  Ids eos_;
};

}  // namespace chorus
