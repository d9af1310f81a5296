// The synthesis request body, checked once at the edge. Field names in
// errors are the wire names.

import { InvalidJsonError, MissingTextError, TextTooLongError } from '../errors.js'
import { invalid, isFiniteNumber, isInteger, isPlainObject } from '../validate.js'
import { assertVoiceName } from '../voices/voice-name.js'

/** The voice may also come in this header, so a gateway can route on it
 * without reading the body (README, Voice affinity). */
export const VOICE_HEADER = 'X-Chorus-Voice'

export interface TtsRequest {
  text: string
  /** Undefined: the default voice. */
  voice?: string
  speaker?: number | string
  lengthScale?: number
  noiseScale?: number
  noiseW?: number
  sentenceSilence?: number
  stream: boolean
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
  if (!isPlainObject(body)) throw new InvalidJsonError()
  if (typeof body.text !== 'string') throw new MissingTextError()
  const text = body.text.trim()
  if (text.length === 0) throw new MissingTextError()
  // Characters are Unicode code points, so an emoji counts once.
  let length = 0
  for (const _ of text) length++
  if (length > maxTextLength) throw new TextTooLongError(length, maxTextLength)

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
  return {
    text,
    ...(typeof voice === 'string' && voice !== '' ? { voice } : {}),
    ...(speaker !== undefined && speaker !== null ? { speaker: speaker as number | string } : {}),
    lengthScale: optionalNumber(body, 'length_scale'),
    noiseScale: optionalNumber(body, 'noise_scale'),
    noiseW: optionalNumber(body, 'noise_w'),
    sentenceSilence: optionalNumber(body, 'sentence_silence'),
    stream: stream === true || streamParam === '1' || streamParam === 'true'
  }
}
