// The voice admin API, behind the admin check: GET /admin/voices (the
// catalogue with what is installed or installing), POST /admin/voices/:name
// (install from TTS_VOICE_SOURCE, size and md5 checked; answered once the
// voice is in place; a second request for the same voice joins the first),
// DELETE /admin/voices/:name. The work is the installer's (voices/installer.ts),
// shared with `chorus voices install|remove`.

import Router from '@koa/router'
import { ChorusError, isChorusError } from '../../errors.js'
import type { ChorusState } from '../context.js'
import type { ServiceDeps } from '../deps.js'
import { requireAdmin } from '../auth/middleware.js'

export function voicesAdminRoutes (deps: ServiceDeps): Router<ChorusState> {
  const { installer, registry } = deps
  const router = new Router<ChorusState>()
  const admin = requireAdmin(deps.config.adminToken)
  router.get('admin-voices', '/admin/voices', admin, async ctx => {
    ctx.state.route = '/admin/voices'
    const catalog = await installer.catalog().catch(forAdmin)
    const rows = catalog.list().map(voice => ({
      name: voice.name,
      language: voice.language,
      quality: voice.quality,
      num_speakers: voice.numSpeakers,
      size_bytes: voice.model.sizeBytes + voice.config.sizeBytes,
      ...state(voice.name, true)
    }))
    // Voices put in the folder by hand, which the catalogue does not know.
    const own = registry.names().filter(name => !catalog.has(name)).map(name => ({ name, ...state(name, false) }))
    ctx.body = { source: installer.source, voice_dir: installer.voiceDir, voices: [...rows, ...own] }
  })
  router.post('admin-voice-install', '/admin/voices/:name', admin, async ctx => {
    ctx.state.route = '/admin/voices/:name'
    const result = await installer.install(ctx.params.name).catch(forAdmin)
    ctx.status = result.status === 'installed' ? 201 : 200
    ctx.body = { voice: result.name, status: result.status, bytes_written: result.bytes, installed: registry.get(result.name) !== undefined }
  })
  router.delete('admin-voice-remove', '/admin/voices/:name', admin, async ctx => {
    ctx.state.route = '/admin/voices/:name'
    await installer.remove(ctx.params.name).catch(forAdmin)
    ctx.status = 204
  })
  return router

  function state (name: string, inCatalog: boolean): Record<string, unknown> {
    const progress = installer.installing(name)
    if (progress !== undefined) {
      return { state: 'installing', in_catalog: inCatalog, bytes_done: progress.bytesDone, bytes_total: progress.bytesTotal }
    }
    return { state: registry.get(name) !== undefined ? 'installed' : 'available', in_catalog: inCatalog }
  }
}

/** An admin is told why an install failed (a download that broke off, a
 * checksum that did not match, a full disk), which other clients never see. */
function forAdmin (error: unknown): never {
  if (isChorusError(error) && !error.expose) {
    throw new ChorusError(error.code, error.message, { status: error.status, expose: true, details: error.details, headers: error.headers, cause: error })
  }
  throw error
}
