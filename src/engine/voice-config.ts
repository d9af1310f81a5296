// A Piper voice's .onnx.json, parsed into a typed VoiceConfig. Every problem
// is a VoiceConfigError naming the file and the field. Clients may see these
// messages (a broken voice's reason), so they name the file without its
// folder and never quote the file's contents: the folder goes to the log.

import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { VoiceConfigError } from './errors.js'
import { expectedMessage, isFiniteNumber, isInteger, isPlainObject } from '../validate.js'

export type PhonemeType = 'espeak' | 'text'

export interface InferenceDefaults {
  noiseScale: number
  lengthScale: number
  noiseW: number
}

export interface VoiceConfig {
  sampleRate: number
  quality?: string
  languageCode?: string
  espeakVoice: string
  phonemeType: PhonemeType
  /** Phoneme (one codepoint) → ids. Contains "_", "^" and "$". */
  phonemeIdMap: Record<string, number[]>
  /** num_symbols: the rows of the model's phoneme table, as the config states them (checked against the model at the scan). */
  numSymbols?: number
  /** Phoneme → replacement phonemes, applied before the id lookup. */
  phonemeMap: Record<string, string[]>
  numSpeakers: number
  /** Speaker name → id, each id below numSpeakers. */
  speakerIdMap: Record<string, number>
  inference: InferenceDefaults
}

/** Rates real audio uses; outside them a config is damaged, and a WAV header would say so. */
const SAMPLE_RATE_RANGE = { min: 8000, max: 96_000 } as const

// Piper's defaults where a config leaves inference settings out.
const DEFAULT_INFERENCE: InferenceDefaults = { noiseScale: 0.667, lengthScale: 1, noiseW: 0.8 }

class ConfigReader {
  constructor (private readonly file: string) {}

  fail (what: string, field: string, value: unknown): never {
    throw new VoiceConfigError(`Invalid voice config ${this.file}: ${expectedMessage(what, field, value)}`,
      { details: { file: this.file, field } })
  }

  object (value: unknown, field: string): Record<string, unknown> {
    return isPlainObject(value) ? value : this.fail('an object', field, value)
  }

  optionalObject (value: unknown, field: string): Record<string, unknown> {
    return value === undefined || value === null ? {} : this.object(value, field)
  }

  string (value: unknown, field: string): string {
    return typeof value === 'string' && value.length > 0 ? value : this.fail('a non-empty string', field, value)
  }

  sampleRate (value: unknown): number {
    const { min, max } = SAMPLE_RATE_RANGE
    return isInteger(value) && value >= min && value <= max ? value : this.fail(`an integer from ${min} to ${max} (Hz)`, 'audio.sample_rate', value)
  }

  positiveInteger (value: unknown, field: string): number {
    return isInteger(value) && value > 0 ? value : this.fail('a positive integer', field, value)
  }

  nonNegativeNumber (value: unknown, field: string, fallback: number): number {
    if (value === undefined) return fallback
    return isFiniteNumber(value) && value >= 0 ? value : this.fail('a non-negative number', field, value)
  }
}

function singleCodepoint (key: string): boolean {
  return [...key].length === 1
}

function parsePhonemeIdMap (read: ConfigReader, value: unknown): Record<string, number[]> {
  const source = read.object(value, 'phoneme_id_map')
  const map: Record<string, number[]> = Object.create(null)
  for (const [phoneme, ids] of Object.entries(source)) {
    const field = `phoneme_id_map[${JSON.stringify(phoneme)}]`
    if (!singleCodepoint(phoneme)) read.fail('a single-codepoint phoneme key', 'phoneme_id_map', phoneme)
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every(id => isInteger(id) && id >= 0)) {
      read.fail('a non-empty array of non-negative integers', field, ids)
    }
    map[phoneme] = ids as number[]
  }
  for (const required of ['_', '^', '$']) {
    if (!(required in map)) read.fail(`an entry for "${required}"`, 'phoneme_id_map', Object.keys(map).length + ' entries')
  }
  return map
}

function parsePhonemeMap (read: ConfigReader, value: unknown): Record<string, string[]> {
  const source = read.optionalObject(value, 'phoneme_map')
  const map: Record<string, string[]> = Object.create(null)
  for (const [phoneme, replacement] of Object.entries(source)) {
    const field = `phoneme_map[${JSON.stringify(phoneme)}]`
    if (!singleCodepoint(phoneme)) read.fail('a single-codepoint phoneme key', 'phoneme_map', phoneme)
    if (!Array.isArray(replacement) || !replacement.every(p => typeof p === 'string' && singleCodepoint(p))) {
      read.fail('an array of single-codepoint phonemes', field, replacement)
    }
    map[phoneme] = replacement as string[]
  }
  return map
}

function parseSpeakers (read: ConfigReader, value: unknown, numSpeakers: number): Record<string, number> {
  const source = read.optionalObject(value, 'speaker_id_map')
  const map: Record<string, number> = Object.create(null)
  for (const [name, id] of Object.entries(source)) {
    if (!isInteger(id) || id < 0 || id >= numSpeakers) {
      read.fail(`an integer from 0 to ${numSpeakers - 1}`, `speaker_id_map[${JSON.stringify(name)}]`, id)
    }
    map[name] = id
  }
  return map
}

/** Validates a parsed config object; `file` (its name, not its folder) names it in errors. */
export function parseVoiceConfig (json: unknown, file: string): VoiceConfig {
  const read: ConfigReader = new ConfigReader(basename(file))
  const root = read.object(json, '(root)')
  const audio = read.object(root.audio, 'audio')
  const rawType = root.phoneme_type ?? 'espeak'
  if (rawType !== 'espeak' && rawType !== 'text') read.fail('"espeak" or "text"', 'phoneme_type', rawType)
  const phonemeType: PhonemeType = rawType
  const espeak = read.optionalObject(root.espeak, 'espeak')
  const espeakVoice = phonemeType === 'espeak' ? read.string(espeak.voice, 'espeak.voice') : String(espeak.voice ?? '')
  const numSpeakers = root.num_speakers === undefined ? 1 : read.positiveInteger(root.num_speakers, 'num_speakers')
  const inference = read.optionalObject(root.inference, 'inference')
  const language = read.optionalObject(root.language, 'language')
  return {
    sampleRate: read.sampleRate(audio.sample_rate),
    ...(typeof audio.quality === 'string' ? { quality: audio.quality } : {}),
    ...(typeof language.code === 'string' ? { languageCode: language.code } : {}),
    espeakVoice,
    phonemeType,
    phonemeIdMap: parsePhonemeIdMap(read, root.phoneme_id_map),
    ...(root.num_symbols === undefined ? {} : { numSymbols: read.positiveInteger(root.num_symbols, 'num_symbols') }),
    phonemeMap: parsePhonemeMap(read, root.phoneme_map),
    numSpeakers,
    speakerIdMap: parseSpeakers(read, root.speaker_id_map, numSpeakers),
    inference: {
      noiseScale: read.nonNegativeNumber(inference.noise_scale, 'inference.noise_scale', DEFAULT_INFERENCE.noiseScale),
      lengthScale: read.nonNegativeNumber(inference.length_scale, 'inference.length_scale', DEFAULT_INFERENCE.lengthScale),
      noiseW: read.nonNegativeNumber(inference.noise_w, 'inference.noise_w', DEFAULT_INFERENCE.noiseW)
    }
  }
}

/** Reads and validates `<model>.onnx.json` (or `file`). */
export async function loadVoiceConfig (file: string): Promise<VoiceConfig> {
  const name = basename(file)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason = code === 'ENOENT' ? 'file not found' : `cannot be read (${code ?? 'error'})`
    throw new VoiceConfigError(`Cannot read voice config ${name}: ${reason}`, { cause: error, details: { file: name } })
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    // V8's message quotes the text it failed on: say only where.
    throw new VoiceConfigError(`Invalid voice config ${name}: not valid JSON${jsonErrorPlace(error)}`,
      { cause: error, details: { file: name } })
  }
  return parseVoiceConfig(json, file)
}

function jsonErrorPlace (error: unknown): string {
  const position = /position (\d+)/.exec((error as Error).message)?.[1]
  return position === undefined ? '' : ` (at character ${position})`
}
