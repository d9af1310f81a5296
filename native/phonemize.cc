#include "phonemize.h"

#include <espeak-ng/speak_lib.h>

#include <mutex>

#include "espeak_runtime.h"

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

}  // namespace

std::vector<std::string> PhonemizeSentences(const std::string& text, const std::string& espeak_voice) {
  std::vector<std::string> sentences;
  std::string current;
  std::lock_guard<std::mutex> lock(EspeakMutex());
  SelectEspeakVoiceLocked(espeak_voice);
  const void* cursor = text.c_str();
  while (cursor != nullptr) {
    int terminator = 0;
    const char* clause = espeak_TextToPhonemesWithTerminator(&cursor, espeakCHARS_AUTO,
                                                             espeakPHONEMES_IPA, &terminator);
    if (clause != nullptr) current += RemoveLanguageSwitches(clause);
    current += PunctuationFor(terminator);
    if ((terminator & kClauseTypeSentence) == kClauseTypeSentence) {
      sentences.push_back(std::move(current));
      current.clear();
    }
  }
  sentences.push_back(std::move(current));
  // Drop sentences that hold nothing but the separators added above.
  std::vector<std::string> kept;
  for (auto& sentence : sentences) {
    if (sentence.find_first_not_of(' ') != std::string::npos) kept.push_back(std::move(sentence));
  }
  return kept;
}

}  // namespace chorus
