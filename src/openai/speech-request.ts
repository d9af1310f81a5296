// The body of POST /v1/audio/speech, OpenAI's contract, described once
// (SPEECH_REQUEST, read by the validator and the OpenAPI document) and parsed
// once here into plain values.

import { AUDIO_FORMATS, type AudioFormat } from '../audio/formats.js'
import { invalidJson, textTooLong } from '../synthesis/errors.js'
import { checkFields, codePoints, type ObjectSchema } from '../shared/schema.js'
import type { LexiconLocator } from '../synthesis/lexicon-source.js'
import { LEXICON_FIELDS, parseLexiconLocators } from '../synthesis/tts-request.js'
import { hasVisibleText, invalid, isPlainObject } from '../validate.js'

/** OpenAI's own limit on `input`; the service's TTS_MAX_TEXT_LENGTH applies too. */
const OPENAI_MAX_INPUT = 4096
export const OPENAI_MODELS = ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts'] as const
const STREAM_FORMATS = ['audio', 'sse'] as const

export const SPEECH_REQUEST: ObjectSchema = {
  type: 'object',
  required: ['model', 'input', 'voice'],
  properties: {
    model: { type: 'string', minLength: 1, description: `${OPENAI_MODELS.join(', ')} (all speak with the voice that \`voice\` picks), or an installed Piper voice name (that voice speaks; \`voice\` may then name one of its speakers).` },
    input: { type: 'string', minLength: 1, maxLength: OPENAI_MAX_INPUT, pattern: '\\S', description: 'The text to speak. The service\'s own limit (TTS_MAX_TEXT_LENGTH) applies as well: beyond it the answer is 413.' },
    voice: {
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } }
      ],
      description: 'An OpenAI voice name (mapped by TTS_OPENAI_VOICES), an installed Piper voice name or en_US-espeak-low, as a string or as {"id": …}.'
    },
    response_format: { type: 'string', enum: AUDIO_FORMATS, default: 'mp3', description: 'mp3, opus (Ogg Opus, 24 kHz), aac (AAC-LC in ADTS frames), flac and wav at the voice\'s rate, pcm (raw 24 kHz signed 16-bit little-endian mono). aac needs FFmpeg\'s libavcodec59 on the server: without it, 400 with code format_unavailable.' },
    speed: { type: 'number', minimum: 0.25, maximum: 4, default: 1, description: 'Speaking rate: length_scale = the voice\'s default length_scale / speed.' },
    instructions: { type: 'string', description: 'Accepted and ignored: Piper voices take no style instructions.' },
    stream_format: { type: 'string', enum: STREAM_FORMATS, default: 'audio', description: 'audio: the encoded audio as a chunked body. sse: Server-Sent Events with base64 audio deltas and a final speech.audio.done event.' },
    normalize: { type: 'boolean', default: true, description: 'A Chorus extension: read the input as language models write it (markdown, emoji, URLs, money, units, dates and times, abbreviations; English voices; docs/normalizer.md). On here: this endpoint\'s input is model output. false speaks it as sent.' },
    lexicons: { ...LEXICON_FIELDS.lexicons, description: 'A Chorus extension: lexicons to apply, the first winning a tie: ids, or {"id", "version"} (docs/pronunciation.md). An input that starts with <speak> is read as SSML.' }
  }
}

export type VoiceChoice = string

export interface SpeechRequest {
  model: string
  input: string
  voice: VoiceChoice
  format: AudioFormat
  speed: number
  streamFormat: typeof STREAM_FORMATS[number]
  normalize: boolean
  lexicons?: LexiconLocator[]
}

export function parseSpeechRequest (body: unknown, maxTextLength: number): SpeechRequest {
  if (!isPlainObject(body)) throw invalidJson()
  const format = body.response_format
  checkFields(SPEECH_REQUEST, body)
  const input = body.input as string
  // Zero-width characters alone phonemize to nothing: an empty file is no answer.
  if (!hasVisibleText(input)) throw invalid('text with at least one visible character', 'input', input)
  const length = codePoints(input)
  if (length > maxTextLength) throw textTooLong(length, maxTextLength)
  const voice = body.voice as string | { id: string }
  const lexicons = parseLexiconLocators({ lexicons: body.lexicons })
  return {
    model: body.model as string,
    input,
    voice: typeof voice === 'string' ? voice : voice.id,
    format: (format ?? 'mp3') as AudioFormat,
    speed: (body.speed ?? 1) as number,
    streamFormat: (body.stream_format ?? 'audio') as SpeechRequest['streamFormat'],
    normalize: (body.normalize ?? true) as boolean,
    ...(lexicons !== undefined ? { lexicons } : {})
  }
}
