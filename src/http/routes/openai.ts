// OpenAI's speech API: POST /v1/audio/speech, GET /v1/models and
// GET /v1/audio/voices. Errors take OpenAI's shape on these paths (app.ts). The request becomes
// the same TtsRequest as /tts (speed applied to the voice's own
// length_scale), so voices, settings, the queue and the cache behave alike.

import Router from '@koa/router'
import type { Context } from 'koa'
import { modelList, voiceList } from '../../openai/models.js'
import { parseSpeechRequest } from '../../openai/speech-request.js'
import { sseDelta, sseDone } from '../../openai/sse.js'
import { resolveSpeechVoice } from '../../openai/voice-resolver.js'
import type { VoiceTarget } from '../../openai/voice-map.js'
import { codePoints } from '../../shared/schema.js'
import type { SpeechService } from '../../synthesis/speech-service.js'
import type { VoiceInfo } from '../../synthesis/voice-info.js'
import type { ChorusState } from '../context.js'
import { readJsonBody, textBodyLimit } from '../json-body.js'
import { sendSpeech, sendTimedJson } from '../speech-response.js'
import { parseTimestamps, sseTiming } from '../../synthesis/timing/wire.js'

export interface OpenAISettings {
  maxTextLength: number
  openaiVoices: Record<string, VoiceTarget>
}

/** OpenAI's paths, whose every error (refusals at the door included) takes OpenAI's shape. */
export function isOpenAIPath (path: string): boolean {
  return path === '/v1/models' || path.startsWith('/v1/models/') || path.startsWith('/v1/audio/')
}

export function openAIRoutes (speech: SpeechService, settings: OpenAISettings, voices: () => VoiceInfo[]): Router<ChorusState> {
  const router = new Router<ChorusState>()

  async function post (ctx: Context & { state: ChorusState }): Promise<void> {
    ctx.state.route = '/v1/audio/speech'
    const body = await readJsonBody(ctx, textBodyLimit(settings.maxTextLength))
    const request = parseSpeechRequest(body, settings.maxTextLength)
    const timestamps = parseTimestamps(body) ?? []
    const target = resolveSpeechVoice(speech, settings.openaiVoices, request)
    if (target.substitutedFor !== undefined) {
      ctx.state.log.info({ requested: request.voice, mapped: target.substitutedFor, speaking: target.voice }, 'mapped voice not installed: the default voice speaks')
    }
    const tts = { text: request.input, voice: target.voice, ...(target.speaker !== undefined ? { speaker: target.speaker } : {}), speed: request.speed, stream: true, normalize: request.normalize, ...(request.lexicons !== undefined ? { lexicons: request.lexicons } : {}) }
    const sse = request.streamFormat === 'sse'
    if (sse) ctx.set('Cache-Control', 'no-cache')
    const characters = codePoints(request.input)
    if (timestamps.length > 0 && !sse) {
      // Timing with the audio as one body: JSON, the audio base64-encoded beside it.
      await sendTimedJson(ctx, speech, { request: { ...tts, stream: false }, format: request.format, stream: false, timestamps })
      return
    }
    await sendSpeech(ctx, speech, { request: tts, format: request.format, stream: true, ...(timestamps.length > 0 ? { timestamps } : {}) },
      sse ? { contentType: 'text/event-stream', chunk: sseDelta, timing: sseTiming, end: () => sseDone(characters) } : undefined)
  }

  router.post('openai-speech', '/v1/audio/speech', post)
  router.get('openai-models', '/v1/models', ctx => {
    ctx.state.route = '/v1/models'
    ctx.body = modelList(speech)
  })
  router.get('openai-voices', '/v1/audio/voices', ctx => {
    ctx.state.route = '/v1/audio/voices'
    ctx.body = voiceList(speech, settings.openaiVoices, voices())
  })
  return router
}
