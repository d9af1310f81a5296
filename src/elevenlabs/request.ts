// ElevenLabs' text-to-speech HTTP routes' inputs, checked once at the edge,
// with the names of ElevenLabs' reference and SDK: the voice_id in the path,
// output_format in the query (the WebSocket's names), and the body {text,
// voice_settings, pronunciation_dictionary_locators}. model_id,
// language_code, seed, previous_text, next_text, previous_request_ids,
// next_request_ids, apply_text_normalization, use_pvc_as_ivc, enable_logging
// and optimize_streaming_latency are accepted and ignored (docs/protocols.md).

import type { SpeechService } from '../synthesis/speech-service.js'
import { parseLexiconLocators, type TtsRequest } from '../synthesis/tts-request.js'
import { invalid, isPlainObject } from '../validate.js'
import type { VoiceTarget } from '../openai/voice-map.js'
import { contextRequest } from '../websocket/messages.js'
import { parseOutputFormat, type OutputFormat } from '../websocket/output-format.js'
import { resolveSocketVoice } from '../websocket/upgrade.js'

export interface ElevenLabsSpeech {
  request: TtsRequest
  output: OutputFormat
}

export function parseElevenLabsSpeech (speech: SpeechService, voiceMap: Readonly<Record<string, VoiceTarget>>, voiceId: string,
  outputFormat: string | undefined, body: unknown, maxTextLength: number): ElevenLabsSpeech {
  if (!isPlainObject(body)) throw invalid('a JSON object', 'the request body', body)
  const { text } = body
  if (typeof text !== 'string' || text.trim().length === 0) throw invalid('a non-empty string', 'text', text)
  if (text.length > maxTextLength) throw invalid(`at most ${maxTextLength} characters`, 'text', `${text.length} characters`)
  const settings = body.voice_settings
  if (settings !== undefined && settings !== null && !isPlainObject(settings)) throw invalid('an object', 'voice_settings', settings)
  const output = parseOutputFormat(outputFormat)
  const voice = resolveSocketVoice(speech, voiceMap, voiceId)
  const lexicons = parseLexiconLocators({ pronunciation_dictionary_locators: body.pronunciation_dictionary_locators })
  const request = contextRequest(voice.voice, voice.speaker, isPlainObject(settings) ? settings : {}, lexicons === undefined ? {} : { lexicons })
  return { request: { ...request, text }, output }
}
