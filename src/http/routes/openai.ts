// OpenAI's speech API: POST /v1/audio/speech, GET /v1/models and
// GET /v1/audio/voices. Errors take OpenAI's shape here. The request is
// turned into the same TtsRequest as /tts, so voices, settings, the queue and
// the phrase cache behave alike.

import Router from '@koa/router'
import type { Context } from 'koa'
import { openAIErrors } from '../../openai/errors.js'
import { modelList, voiceList } from '../../openai/models.js'
import { parseSpeechRequest } from '../../openai/speech-request.js'
import { sseDelta, sseDone } from '../../openai/sse.js'
import { resolveSpeechVoice } from '../../openai/voice-resolver.js'
import { describeVoices } from '../../synthesis/voice-info.js'
import { codePoints } from '../../shared/schema.js'
import type { TtsRequest } from '../../synthesis/tts-request.js'
import type { ChorusState } from '../context.js'
import type { ServiceDeps } from '../deps.js'
import { readJsonBody, textBodyLimit } from '../json-body.js'
import { rawFraming, sendSpeech } from '../speech-response.js'

export function openAIRoutes (deps: ServiceDeps): Router<ChorusState> {
  const { config, synthesizer } = deps
  const router = new Router<ChorusState>()

  async function speech (ctx: Context & { state: ChorusState }): Promise<void> {
    ctx.state.route = '/v1/audio/speech'
    const body = await readJsonBody(ctx, textBodyLimit(config.maxTextLength))
    const request = parseSpeechRequest(body, config.maxTextLength)
    const target = resolveSpeechVoice(synthesizer, config.openaiVoices, request)
    if (target.substitutedFor !== undefined) {
      ctx.state.log.info({ requested: request.voice, mapped: target.substitutedFor, speaking: target.voice }, 'mapped voice not installed: the default voice speaks')
    }
    const defaultLengthScale = synthesizer.defaultSettings(synthesizer.resolveVoice(target.voice)).lengthScale
    const tts: TtsRequest = {
      text: request.input,
      voice: target.voice,
      ...(target.speaker !== undefined ? { speaker: target.speaker } : {}),
      lengthScale: defaultLengthScale / request.speed,
      stream: true
    }
    const prepared = synthesizer.prepare(tts)
    if (request.streamFormat === 'sse') {
      ctx.set('Cache-Control', 'no-cache')
      const characters = codePoints(request.input)
      await sendSpeech(ctx, deps, prepared, request.input, request.format, { contentType: 'text/event-stream', chunk: sseDelta, end: () => sseDone(characters) })
      return
    }
    await sendSpeech(ctx, deps, prepared, request.input, request.format, rawFraming(request.format))
  }

  router.post('openai-speech', '/v1/audio/speech', openAIErrors(), speech)
  router.get('openai-models', '/v1/models', openAIErrors(), ctx => {
    ctx.state.route = '/v1/models'
    ctx.body = modelList(synthesizer)
  })
  router.get('openai-voices', '/v1/audio/voices', openAIErrors(), ctx => {
    ctx.state.route = '/v1/audio/voices'
    ctx.body = voiceList(synthesizer, config.openaiVoices, describeVoices(deps))
  })
  return router
}
