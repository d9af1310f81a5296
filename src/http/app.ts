// The Koa application: the shared error middleware first (in OpenAI's shape
// on OpenAI's paths, the house shape elsewhere), then the shared request id,
// metrics, admission (host, page, key, quota and tenant, before any work and
// before the guard, so a stranger learns nothing about the routes), the
// 404/405 guard and the routes.

import Router from '@koa/router'
import Koa from 'koa'
import type { ChorusState } from './context.js'
import type { ServiceDeps } from './deps.js'
import { HOUSE_BODIES, isHangUpError, jsonErrors } from '../shared/json-errors.js'
import { requestId } from '../shared/request-id.js'
import { openAIErrors } from '../openai/errors.js'
import { admission } from './auth/middleware.js'
import { methodGuard } from './method-guard.js'
import { requestMetrics } from './request-metrics.js'
import { metricsRoutes } from './routes/metrics.js'
import { isOpenAIPath, openAIRoutes } from './routes/openai.js'
import { openApiRoutes } from './routes/openapi.js'
import { playgroundRoutes } from './routes/playground.js'
import { statusRoutes } from './routes/status.js'
import { ttsRoutes } from './routes/tts.js'
import { voicesAdminRoutes } from './routes/voices-admin.js'
import { lexiconsAdminRoutes } from './routes/lexicons-admin.js'
import { elevenLabsRoutes } from './routes/elevenlabs.js'
import { heardRoutes } from './routes/heard.js'
import { describeVoices } from '../synthesis/voice-info.js'

/** The shared error middleware with the house bodies, and OpenAI's on its
 * paths (its clients read `error.message`), refusals at the door included;
 * lines go to the request's logger. */
export function serviceErrors (): Koa.Middleware {
  const house = jsonErrors({ ...HOUSE_BODIES, log: ctx => (ctx.state as ChorusState).log })
  const openAI = openAIErrors()
  return async (ctx, next) => { await (isOpenAIPath(ctx.path) ? openAI : house)(ctx, next) }
}

/** Every route the service answers, on one router. */
export function serviceRouter (deps: ServiceDeps): Router<ChorusState> {
  const router = new Router<ChorusState>()
  for (const routes of [statusRoutes(deps), ttsRoutes(deps.speech, deps.config), openAIRoutes(deps.speech, deps.config, () => describeVoices(deps)), openApiRoutes(), playgroundRoutes(), metricsRoutes(deps), voicesAdminRoutes(deps), lexiconsAdminRoutes(deps),
    elevenLabsRoutes(deps.speech, deps.config, () => describeVoices(deps)), heardRoutes(deps.speech)]) router.use(routes.routes())
  return router
}

export function createApp (deps: ServiceDeps, router = serviceRouter(deps)): Koa<ChorusState> {
  const app = new Koa<ChorusState>()
  app.use(serviceErrors())
  app.use(requestId(deps.log))
  app.use(requestMetrics(deps.metrics))
  app.use(admission(deps.access, { metricsPublic: deps.config.metricsPublic }))
  app.use(methodGuard(router))
  app.use(router.routes())
  // Errors are answered by serviceErrors; this only sees what escapes it, and
  // the socket errors Koa reports after a hang-up that serviceErrors already logged.
  app.on('error', (error: Error) => {
    if (isHangUpError(error)) deps.log.debug({ reason: (error as NodeJS.ErrnoException).code }, 'client connection ended')
    else deps.log.error({ err: error }, 'koa error')
  })
  return app
}
