#include "espeak_internals.h"

#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>

extern "C" {
#include "third_party/espeak-ng/src/libespeak-ng/dictionary.h"
#include "third_party/espeak-ng/src/libespeak-ng/phoneme.h"
#include "third_party/espeak-ng/src/libespeak-ng/readclause.h"
#include "third_party/espeak-ng/src/libespeak-ng/synthdata.h"
#include "third_party/espeak-ng/src/libespeak-ng/synthesize.h"
#include "third_party/espeak-ng/src/libespeak-ng/translate.h"
}

namespace chorus {
namespace {

// A word's source index is kept in the low 11 bits of `sourceix`, its
// length above them.
constexpr unsigned kSourceIndexBits = 11;
constexpr unsigned kSourceIndexMask = (1u << kSourceIndexBits) - 1;
// ReadClause reads one character ahead, so the position it records for a
// character is the count of characters read when the next one was read:
// the character's own index plus two.
constexpr int kReadAhead = 2;

}  // namespace

void ResetEspeakTextStateLocked() {
  // Unread characters, the SSML and parameter stacks, say-as, sentence
  // counting: the state espeak_Synth resets at the start of every text.
  // The translator's memory of the word before (stress, expected verb or
  // noun) is reset by TranslateClause at every clause.
  InitText(0);
}

void ResetEspeakSourcePositionsLocked() { count_characters = 0; }

std::vector<EspeakWordStart> ClauseWordStartsLocked() {
  std::vector<EspeakWordStart> words;
  // The range GetTranslatedPhonemeString writes: the list's first entry and
  // its two closing pauses are not part of the output.
  for (int ix = 1; ix < n_phoneme_list - 2; ++ix) {
    const PHONEME_LIST& entry = phoneme_list[ix];
    if ((entry.newword & PHLIST_START_OF_WORD) == 0) continue;
    int source = static_cast<int>(entry.sourceix & kSourceIndexMask);
    words.push_back({clause_start_char + source - kReadAhead, static_cast<int>(entry.sourceix >> kSourceIndexBits)});
  }
  return words;
}

std::vector<EspeakPhonemeName> EspeakPhonemeNamesLocked() {
  // A word in another language may have left its table selected.
  SelectPhonemeTable(translator->phoneme_tab_ix);
  std::vector<EspeakPhonemeName> names;
  // Longer than any name WritePhMnemonic writes (four mnemonic characters,
  // or an IPA string of a few code points).
  char buffer[64];
  for (int code = 0; code < n_phoneme_tab; ++code) {
    PHONEME_TAB* phoneme = phoneme_tab[code];
    // A language switch names its table through a phoneme list entry, which a table has not.
    if (phoneme == nullptr || phoneme->mnemonic == 0 || phoneme->code == phonSWITCH) continue;
    buffer[0] = '\0';
    WritePhMnemonic(buffer, phoneme, nullptr, 0, nullptr);
    std::string mnemonic(buffer);
    buffer[0] = '\0';
    WritePhMnemonic(buffer, phoneme, nullptr, 1, nullptr);
    names.push_back({std::move(mnemonic), std::string(buffer)});
  }
  return names;
}

void SetEspeakPhonemeEventsLocked(bool on) {
  option_phoneme_events = on ? (espeakINITIALIZE_PHONEME_EVENTS | espeakINITIALIZE_PHONEME_IPA) : 0;
}

}  // namespace chorus
