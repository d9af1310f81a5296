#include "phonemize.h"

#include <espeak-ng/speak_lib.h>

#include <mutex>

#include "espeak_runtime.h"
#include "espeak_internals.h"

namespace chorus {
namespace {

// Clause terminator values from espeak-ng's translate.h (masked with
// 0x000FFFFF), and the bit that marks the end of a sentence.
constexpr int kClausePeriod = 0x00080028;
constexpr int kClauseQuestion = 0x00082028;
constexpr int kClauseExclamation = 0x0008302D;
constexpr int kClauseComma = 0x00041014;
constexpr int kClauseColon = 0x0004001E;
constexpr int kClauseSemicolon = 0x0004101E;
constexpr int kClauseTypeSentence = 0x00080000;

const char* PunctuationFor(int terminator) {
  switch (terminator & 0x000FFFFF) {
    case kClausePeriod: return ".";
    case kClauseQuestion: return "?";
    case kClauseExclamation: return "!";
    case kClauseComma: return ", ";
    case kClauseColon: return ": ";
    case kClauseSemicolon: return "; ";
    default: return " ";
  }
}

// espeak marks a switch of language inside a clause as "(en)", "(fr)", …;
// Piper removes every parenthesised run.
std::string RemoveLanguageSwitches(const char* phonemes) {
  std::string out;
  bool inside = false;
  for (const char* p = phonemes; *p != '\0'; ++p) {
    if (!inside && *p == '(') {
      const char* close = p + 1;
      while (*close != '\0' && *close != ')') ++close;
      if (*close == ')' && close > p + 1) {
        inside = true;
        continue;
      }
    }
    if (inside) {
      if (*p == ')') inside = false;
      continue;
    }
    out.push_back(*p);
  }
  return out;
}

uint32_t CodePoints(const std::string& s, size_t from, size_t to) {
  uint32_t count = 0;
  for (size_t i = from; i < to; ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++count;
  }
  return count;
}

// The clause's words: espeak-ng writes one space before every word but the
// first, so the k-th word's phonemes are those after the k-th space. If the
// count of spaces ever disagreed with the words espeak-ng reports, the clause
// becomes one word (at its first word's place) rather than a wrong mapping.
void AddClauseWords(const std::string& clause, uint32_t offset, const std::vector<EspeakWordStart>& starts,
                    std::vector<PhonemizedWord>* words) {
  if (starts.empty()) return;
  std::vector<size_t> spaces;
  for (size_t i = 0; i < clause.size(); ++i) {
    if (clause[i] == ' ') spaces.push_back(i);
  }
  if (spaces.size() + 1 != starts.size()) {
    words->push_back({offset, offset + CodePoints(clause, 0, clause.size()), starts[0].source_start, starts[0].source_length});
    return;
  }
  uint32_t at = offset;
  size_t from = 0;
  for (size_t k = 0; k < starts.size(); ++k) {
    size_t to = k < spaces.size() ? spaces[k] : clause.size();
    uint32_t start = at;
    at += CodePoints(clause, from, to);
    words->push_back({start, at, starts[k].source_start, starts[k].source_length});
    // Past the space.
    if (k < spaces.size()) at += 1;
    from = to + 1;
  }
}

PhonemizedText Phonemize(const std::string& text, const std::string& espeak_voice, bool with_words) {
  PhonemizedText result;
  std::string current;
  std::vector<PhonemizedWord> current_words;
  std::lock_guard<std::mutex> lock(EspeakMutex());
  SelectEspeakVoiceLocked(espeak_voice);
  // Every text starts from the same state: its phonemes never depend on the
  // text phonemized before it (on this thread or another).
  ResetEspeakTextStateLocked();
  if (with_words) ResetEspeakSourcePositionsLocked();
  const void* cursor = text.c_str();
  while (cursor != nullptr) {
    int terminator = 0;
    const char* clause = espeak_TextToPhonemesWithTerminator(&cursor, espeakCHARS_AUTO,
                                                             espeakPHONEMES_IPA, &terminator);
    if (clause != nullptr) {
      std::string phonemes = RemoveLanguageSwitches(clause);
      if (with_words) AddClauseWords(phonemes, CodePoints(current, 0, current.size()), ClauseWordStartsLocked(), &current_words);
      current += phonemes;
    }
    current += PunctuationFor(terminator);
    if ((terminator & kClauseTypeSentence) == kClauseTypeSentence) {
      result.sentences.push_back(std::move(current));
      result.words.push_back(std::move(current_words));
      current.clear();
      current_words.clear();
    }
  }
  result.sentences.push_back(std::move(current));
  result.words.push_back(std::move(current_words));
  // Drop sentences that hold nothing but the separators added above.
  PhonemizedText kept;
  for (size_t i = 0; i < result.sentences.size(); ++i) {
    if (result.sentences[i].find_first_not_of(' ') == std::string::npos) continue;
    kept.sentences.push_back(std::move(result.sentences[i]));
    kept.words.push_back(std::move(result.words[i]));
  }
  return kept;
}

}  // namespace

std::vector<std::string> PhonemizeSentences(const std::string& text, const std::string& espeak_voice) {
  return Phonemize(text, espeak_voice, false).sentences;
}

PhonemizedText PhonemizeSentencesWithWords(const std::string& text, const std::string& espeak_voice) {
  return Phonemize(text, espeak_voice, true);
}

std::vector<std::pair<std::string, std::string>> EspeakPhonemeNames(const std::string& espeak_voice) {
  std::lock_guard<std::mutex> lock(EspeakMutex());
  SelectEspeakVoiceLocked(espeak_voice);
  std::vector<std::pair<std::string, std::string>> names;
  for (auto& name : EspeakPhonemeNamesLocked()) names.emplace_back(std::move(name.mnemonic), std::move(name.ipa));
  return names;
}

}  // namespace chorus
