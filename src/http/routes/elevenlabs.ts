// ElevenLabs' text-to-speech HTTP routes, as its SDK (@elevenlabs/elevenlabs-js)
// and every ElevenLabs HTTP integration calls them: POST
// /v1/text-to-speech/{voice_id} and /stream (the audio), /with-timestamps
// (JSON: audio_base64 and the character alignment) and
// /stream/with-timestamps (one JSON line per audio chunk), and GET
// /v1/voices. Checked by src/elevenlabs/; the speech service does the rest.

import Router from '@koa/router'
import type { Context } from 'koa'
import { characterAlignment, elevenLabsVoices, timedLines } from '../../elevenlabs/responses.js'
import { parseElevenLabsSpeech } from '../../elevenlabs/request.js'
import type { VoiceTarget } from '../../openai/voice-map.js'
import type { SpeechService } from '../../synthesis/speech-service.js'
import type { VoiceInfo } from '../../synthesis/voice-info.js'
import type { ChorusState } from '../context.js'
import { readJsonBody, textBodyLimit } from '../json-body.js'
import { sendSpeech, sendTimedJson } from '../speech-response.js'

export interface ElevenLabsSettings {
  maxTextLength: number
  openaiVoices: Record<string, VoiceTarget>
}

const BASE = '/v1/text-to-speech/:voice_id'

export function elevenLabsRoutes (speech: SpeechService, settings: ElevenLabsSettings, voices: () => VoiceInfo[]): Router<ChorusState> {
  const router = new Router<ChorusState>()

  async function parse (ctx: Context & { state: ChorusState }, route: string): Promise<ReturnType<typeof parseElevenLabsSpeech>> {
    ctx.state.route = route
    const body = await readJsonBody(ctx, textBodyLimit(settings.maxTextLength))
    const format = typeof ctx.query.output_format === 'string' ? ctx.query.output_format : undefined
    return parseElevenLabsSpeech(speech, settings.openaiVoices, String(ctx.params.voice_id), format, body, settings.maxTextLength)
  }

  // Word timing is always asked for: GET /v1/heard/{request id} reports the words heard.
  const audio = (route: string) => async (ctx: Context & { state: ChorusState }): Promise<void> => {
    const { request, output } = await parse(ctx, route)
    await sendSpeech(ctx, speech, { request, format: output.format, encoding: output.encoding, stream: true, timestamps: ['word'] })
  }

  router.post('elevenlabs-speech', BASE, audio(BASE))
  router.post('elevenlabs-stream', `${BASE}/stream`, audio(`${BASE}/stream`))
  router.post('elevenlabs-timestamps', `${BASE}/with-timestamps`, async ctx => {
    const { request, output } = await parse(ctx, `${BASE}/with-timestamps`)
    await sendTimedJson(ctx, speech, { request, format: output.format, encoding: output.encoding, stream: true, timestamps: ['word'] }, (bytes, timing) => {
      const alignment = characterAlignment(request.text, timing)
      return { audio_base64: bytes.toString('base64'), alignment, normalized_alignment: alignment }
    })
  })
  router.post('elevenlabs-stream-timestamps', `${BASE}/stream/with-timestamps`, async ctx => {
    const { request, output } = await parse(ctx, `${BASE}/stream/with-timestamps`)
    const lines = timedLines(request.text)
    await sendSpeech(ctx, speech, { request, format: output.format, encoding: output.encoding, stream: true, timestamps: ['word'] },
      { contentType: 'application/json', chunk: lines.audio, timing: lines.timing })
  })
  router.get('elevenlabs-voices', '/v1/voices', ctx => {
    ctx.state.route = '/v1/voices'
    ctx.body = elevenLabsVoices(voices())
  })
  return router
}
