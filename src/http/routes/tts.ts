// POST /tts and POST /v1/tts: JSON in, audio out (WAV unless `format`, else
// the Accept header, picks another). A WAV answer is whole, with an exact
// Content-Length, unless streamed (`"stream": true` or ?stream=1): then its
// header goes at once with an open-ended length. Compressed formats always
// stream. The route translates HTTP only; the speech service does the rest.

import Router from '@koa/router'
import type { Context } from 'koa'
import { formatForAccept } from '../../audio/formats.js'
import type { SpeechService } from '../../synthesis/speech-service.js'
import { parseTtsRequest, VOICE_HEADER } from '../../synthesis/tts-request.js'
import type { ChorusState } from '../context.js'
import { readJsonBody, textBodyLimit } from '../json-body.js'
import { sendSpeech, sendTimedJson } from '../speech-response.js'
import { sseDelta, sseDone } from '../../openai/sse.js'
import { parseTimestamps, sseTiming } from '../../synthesis/timing/wire.js'

export function ttsRoutes (speech: SpeechService, settings: { maxTextLength: number }): Router<ChorusState> {
  const router = new Router<ChorusState>()

  async function tts (ctx: Context & { state: ChorusState }): Promise<void> {
    ctx.state.route = '/tts'
    const body = await readJsonBody(ctx, textBodyLimit(settings.maxTextLength))
    const stream = typeof ctx.query.stream === 'string' ? ctx.query.stream : undefined
    const headerVoice = ctx.get(VOICE_HEADER)
    const request = parseTtsRequest(body, settings.maxTextLength, stream, headerVoice === '' ? undefined : headerVoice)
    const format = request.format ?? formatForAccept(ctx.get('Accept')) ?? 'wav'
    const timestamps = parseTimestamps(body)
    if (timestamps === undefined || timestamps.length === 0) {
      await sendSpeech(ctx, speech, { request, format, stream: request.stream })
    } else if (request.stream) {
      // Streamed with timing: Server-Sent Events, each timing event before the audio it covers.
      await sendSpeech(ctx, speech, { request, format, stream: true, timestamps }, { contentType: 'text/event-stream', chunk: sseDelta, timing: sseTiming, end: () => sseDone(request.text.length) })
    } else {
      await sendTimedJson(ctx, speech, { request, format, stream: false, timestamps })
    }
  }

  router.post('tts', '/tts', tts)
  router.post('tts-v1', '/v1/tts', tts)
  return router
}
