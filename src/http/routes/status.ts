// GET /health (liveness), GET /ready (readiness, see synthesis/readiness.ts) and GET /voices.

import Router from '@koa/router'
import type { ChorusState } from '../context.js'
import type { ServiceDeps } from '../deps.js'
import { draining, notReady } from '../errors.js'
import { checkReadiness, poolHealth, servingVoices } from '../../synthesis/readiness.js'
import { describeBrokenVoices, describeVoices } from '../../synthesis/voice-info.js'

export function statusRoutes (deps: ServiceDeps): Router<ChorusState> {
  const router = new Router<ChorusState>()
  router.get('health', '/health', ctx => {
    ctx.state.route = '/health'
    const fallback = deps.speech.defaultVoice()
    const pools = poolHealth(deps)
    ctx.body = {
      status: 'ok',
      default_voice: fallback.effective,
      voices: deps.speech.voiceNames(),
      // The configured default, and whether it is installed: a missing default
      // is reported here rather than hidden.
      configured_default_voice: fallback.configured,
      default_voice_installed: fallback.installed,
      loaded_voices: pools.loaded,
      // TTS_PRELOAD_VOICES' progress: state "done" once every listed voice was tried.
      preload: pools.preload,
      voice_memory: { budget_bytes: pools.memory.budgetBytes, used_bytes: pools.memory.usedBytes },
      pending_requests: deps.speech.pending
    }
  })
  router.get('ready', '/ready', ctx => {
    ctx.state.route = '/ready'
    if (deps.draining?.() === true) throw draining()
    const missing = checkReadiness(deps)
    if (missing.length > 0) throw notReady(missing)
    ctx.body = { status: 'ready', voices: servingVoices(deps) }
  })
  router.get('voices', '/voices', ctx => {
    ctx.state.route = '/voices'
    ctx.body = {
      voices: deps.speech.voiceNames(),
      default_voice: deps.speech.defaultVoice().effective,
      details: describeVoices(deps),
      broken: describeBrokenVoices(deps),
      // Admin API installs under way; a voice appears in `voices` once complete.
      installing: deps.installer.progress().map(p => ({ voice: p.voice, state: p.state, bytes_done: p.bytesDone, bytes_total: p.bytesTotal, started_at: new Date(p.startedAt).toISOString() }))
    }
  })
  return router
}
