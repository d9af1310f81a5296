export { isEnglish, normalizeForSpeech, unchanged, type NormalizeOptions, type SpokenText } from './normalize.js'
