// GET /v1/heard/{request id}: what the listener heard of a streamed answer
// that was cut short (synthesis/heard.ts), for the key that asked for it:
// at ?audio_played_ms= when the client knows its playback position, else
// estimated from the audio sent. The WebSocket protocols answer an
// interruption with the same fields.

import Router from '@koa/router'
import type { SpeechService } from '../../synthesis/speech-service.js'
import { invalid } from '../../validate.js'
import type { ChorusState } from '../context.js'
import { heardNotFound } from '../errors.js'

export function heardRoutes (speech: SpeechService): Router<ChorusState> {
  const router = new Router<ChorusState>()
  router.get('heard', '/v1/heard/:id', ctx => {
    ctx.state.route = '/v1/heard/:id'
    const given = ctx.query.audio_played_ms
    const played = typeof given === 'string' ? Number(given) : undefined
    if (given !== undefined && (typeof given !== 'string' || given === '' || !Number.isFinite(played) || (played as number) < 0)) {
      throw invalid('a number of milliseconds of at least 0', 'audio_played_ms', given)
    }
    const tenant = ctx.state.admitted?.tenant.name
    const log = tenant === undefined ? undefined : speech.heard.find(tenant, String(ctx.params.id))
    if (log === undefined) throw heardNotFound(String(ctx.params.id))
    ctx.body = { request_id: ctx.params.id, ...log.heard(played) }
  })
  return router
}
