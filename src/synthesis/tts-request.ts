// The synthesis request body, checked once at the edge. Field names in
// errors are the wire names.

import { AUDIO_FORMATS, type AudioFormat, isAudioFormat } from '../audio/formats.js'
import { LIMITS } from '../engine/synthesis-config.js'
import { invalidJson, missingText, textTooLong } from './errors.js'
import { SAFE_ID } from '../shared/request-id.js'
import { checkFields, expected, type ObjectSchema, type Schema } from '../shared/schema.js'
import { hasVisibleText, invalid, isFiniteNumber, isInteger, isPlainObject } from '../validate.js'
import { assertVoiceName } from '../voices/voice-name.js'
import type { LexiconLocator } from './lexicon-source.js'

/** Lexicons one request may name (ElevenLabs allows three locators). */
export const MAX_NAMED_LEXICONS = 3
const LEXICON_ID = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'
const ID_SCHEMA = { type: 'string', pattern: LEXICON_ID } as const

/** The request fields that name lexicons: Chorus's own, and ElevenLabs'. */
export const LEXICON_FIELDS = {
  lexicons: {
    type: 'array',
    maxItems: MAX_NAMED_LEXICONS,
    items: { anyOf: [ID_SCHEMA, { type: 'object', required: ['id'], properties: { id: ID_SCHEMA, version: ID_SCHEMA } }] },
    description: 'Lexicons to apply to this request, the first winning a tie: ids, or {"id", "version"} (docs/pronunciation.md).'
  },
  pronunciation_dictionary_locators: {
    type: 'array',
    maxItems: MAX_NAMED_LEXICONS,
    items: { type: 'object', required: ['pronunciation_dictionary_id'], properties: { pronunciation_dictionary_id: ID_SCHEMA, version_id: ID_SCHEMA } },
    description: 'ElevenLabs\' name for lexicons: [{"pronunciation_dictionary_id", "version_id"}], after those of lexicons.'
  }
} as const satisfies Record<string, Schema>

/** The lexicons named by `lexicons` and by ElevenLabs' `pronunciation_dictionary_locators`, in that order. */
export function parseLexiconLocators (body: Record<string, unknown>): LexiconLocator[] | undefined {
  const found: LexiconLocator[] = []
  let named = false
  for (const [field, schema] of Object.entries(LEXICON_FIELDS)) {
    const value = body[field]
    if (value === undefined || value === null) continue
    checkFields({ type: 'object', required: [], properties: { [field]: schema } }, { [field]: value })
    named = true
    for (const item of value as unknown[]) {
      if (typeof item === 'string') found.push({ id: item })
      else {
        const entry = item as Record<string, string | undefined>
        const id = entry.id ?? entry.pronunciation_dictionary_id ?? ''
        const version = entry.version ?? entry.version_id
        found.push(version === undefined ? { id } : { id, version })
      }
    }
  }
  return named ? found : undefined
}

/** The voice may also come in this header, so a gateway can route on it
 * without reading the body (README, Voice affinity). */
export const VOICE_HEADER = 'X-Chorus-Voice'

/** The body's fields as the OpenAPI document publishes them. The checks
 * below and in resolveSynthesisConfig (ranges from the same LIMITS) apply
 * them; test/http/openapi.test.ts checks that both agree. `null` counts as
 * absent. Speaker ids and voice names depend on what is installed. */
export const TTS_REQUEST: ObjectSchema = {
  type: 'object',
  required: ['text'],
  properties: {
    text: { type: 'string', minLength: 1, pattern: '\\S', description: 'The text to speak (at most TTS_MAX_TEXT_LENGTH characters, else 413).' },
    voice: { type: 'string', description: 'An installed voice name or en_US-espeak-low; default: the service\'s default voice.' },
    speaker: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }], description: 'A speaker id or name of a multi-speaker voice.' },
    length_scale: { type: 'number', minimum: LIMITS.lengthScale.min, maximum: LIMITS.lengthScale.max, description: 'Slower when larger; default: the voice\'s.' },
    noise_scale: { type: 'number', minimum: LIMITS.noiseScale.min, maximum: LIMITS.noiseScale.max, description: 'Default: the voice\'s.' },
    noise_w: { type: 'number', minimum: LIMITS.noiseW.min, maximum: LIMITS.noiseW.max, description: 'Default: the voice\'s.' },
    sentence_silence: { type: 'number', minimum: LIMITS.sentenceSilence.min, maximum: LIMITS.sentenceSilence.max, default: 0, description: 'Seconds of silence between sentences.' },
    stream: { type: 'boolean', default: false, description: 'WAV only: send the header at once and each sentence as it is ready (compressed formats always stream).' },
    format: { type: 'string', enum: AUDIO_FORMATS, default: 'wav', description: 'The audio format; else the Accept header picks one (audio/mpeg, audio/ogg, audio/aac, audio/flac, audio/pcm), else WAV. aac needs FFmpeg\'s libavcodec59 on the server: without it, 400 with code ERR_FORMAT_UNAVAILABLE.' },
    after: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$', description: 'The X-Request-Id of the streamed request this one is heard after (a reply\'s previous sentence, sent as its own request): its audio is then due when that one\'s has played, not at once, and slots go to what the listener needs first (docs/api.md).' },
    normalize: { type: 'boolean', default: false, description: 'Read text as language models write it: markdown, emoji, URLs, money, units, dates and times, abbreviations (English voices; docs/normalizer.md). Off here: the text is spoken as sent.' },
    ssml: { type: 'boolean', default: false, description: 'Read text as SSML (the subset in docs/pronunciation.md); a text that starts with <speak> is SSML anyway.' },
    ...LEXICON_FIELDS
  }
}

export interface TtsRequest {
  text: string
  /** Undefined: the default voice. */
  voice?: string
  speaker?: number | string
  lengthScale?: number
  /** Instead of lengthScale: the voice's default length_scale divided by
   * this (OpenAI's `speed`), applied once the voice is known. */
  speed?: number
  noiseScale?: number
  noiseW?: number
  sentenceSilence?: number
  stream: boolean
  /** Undefined: not given in the body (the Accept header may pick one). */
  format?: AudioFormat
  /** Normalize model output before speaking it (src/text/normalize); absent: off. */
  normalize?: boolean
  /** The request id of the answer this one is heard after (playback-registry.ts). */
  after?: string
  /** Speak the text without its surrounding whitespace (POST /tts does);
   * word offsets still index the text as sent. */
  trim?: boolean
  /** Read the text as SSML; absent: only when it starts with <speak>. */
  ssml?: boolean
  /** Lexicons the request names, first wins (lexicon-source.ts). */
  lexicons?: LexiconLocator[]
}

function optionalNumber (body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field]
  if (value === undefined || value === null) return undefined
  // Ranges depend on the field and are checked with the voice's defaults.
  if (!isFiniteNumber(value)) throw invalid('a number', field, value)
  return value
}

/** `streamParam` is the ?stream= query value, `headerVoice` the
 * X-Chorus-Voice header's, if any. A header and a body naming different
 * voices are refused: the gateway routed on one, the body asks for another. */
export function parseTtsRequest (body: unknown, maxTextLength: number, streamParam?: string, headerVoice?: string): TtsRequest {
  if (!isPlainObject(body)) throw invalidJson()
  if (typeof body.text !== 'string') throw missingText()
  const text = body.text.trim()
  if (text.length === 0) throw missingText()
  // Zero-width characters alone phonemize to nothing: an empty WAV is no answer.
  if (!hasVisibleText(text)) throw invalid('text with at least one visible character', 'text', body.text)
  // Characters are Unicode code points, so an emoji counts once.
  let length = 0
  for (const _ of text) length++
  if (length > maxTextLength) throw textTooLong(length, maxTextLength)

  let voice = body.voice
  if (voice !== undefined && voice !== null && typeof voice !== 'string') throw invalid('a voice name (string)', 'voice', voice)
  if (headerVoice !== undefined) {
    assertVoiceName(headerVoice, VOICE_HEADER)
    if (typeof voice === 'string' && voice !== '' && voice !== headerVoice) {
      throw invalid(`the voice named by ${VOICE_HEADER} (${headerVoice}), or no voice`, 'voice', voice)
    }
    voice = headerVoice
  }
  const speaker = body.speaker
  if (speaker !== undefined && speaker !== null && !isInteger(speaker) && typeof speaker !== 'string') {
    throw invalid('an integer speaker id or a speaker name', 'speaker', speaker)
  }
  const stream = body.stream
  if (stream !== undefined && stream !== null && typeof stream !== 'boolean') throw invalid('a boolean', 'stream', stream)
  if (streamParam !== undefined && !['0', '1', 'true', 'false'].includes(streamParam)) {
    throw invalid('one of 0, 1, true, false', 'stream (query)', streamParam)
  }
  const normalize = body.normalize
  if (normalize !== undefined && normalize !== null && typeof normalize !== 'boolean') throw invalid('a boolean', 'normalize', normalize)
  const after = body.after
  if (after !== undefined && after !== null && (typeof after !== 'string' || !SAFE_ID.test(after))) {
    throw invalid('a request id (1 to 128 letters, digits, ".", "_", ":" or "-")', 'after', after)
  }
  const format = body.format
  if (format !== undefined && format !== null && !isAudioFormat(format)) throw invalid(expected(TTS_REQUEST.properties.format), 'format', format)
  const ssml = body.ssml
  if (ssml !== undefined && ssml !== null && typeof ssml !== 'boolean') throw invalid('a boolean', 'ssml', ssml)
  const lexicons = parseLexiconLocators(body)
  return {
    // As sent: word timing indexes it; `trim` leaves the surrounding whitespace unspoken.
    text: body.text,
    trim: true,
    ...(typeof voice === 'string' && voice !== '' ? { voice } : {}),
    ...(speaker !== undefined && speaker !== null ? { speaker: speaker as number | string } : {}),
    lengthScale: optionalNumber(body, 'length_scale'),
    noiseScale: optionalNumber(body, 'noise_scale'),
    noiseW: optionalNumber(body, 'noise_w'),
    sentenceSilence: optionalNumber(body, 'sentence_silence'),
    stream: stream === true || streamParam === '1' || streamParam === 'true',
    ...(isAudioFormat(format) ? { format } : {}),
    normalize: normalize === true,
    ...(typeof after === 'string' ? { after } : {}),
    ...(ssml === true ? { ssml } : {}),
    ...(lexicons !== undefined ? { lexicons } : {})
  }
}
