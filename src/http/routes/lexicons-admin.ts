// The lexicon admin API, behind the admin check, named as ElevenLabs names
// its pronunciation dictionaries (an id, a version_id per upload):
//   GET    /admin/lexicons                   every lexicon, with its versions
//   POST   /admin/lexicons/:id[?scope=…]     a new version from a PLS file
//                                            (application/pls+xml, application/xml,
//                                            text/xml) or a JSON map (application/json)
//   GET    /admin/lexicons/:id               one lexicon
//   GET    /admin/lexicons/:id/:version      that version's file as uploaded
//   DELETE /admin/lexicons/:id[/:version]    the lexicon, or one version
// The work is the store's (src/lexicons/store.ts); phonemes are checked
// against the voices that will speak them before a version is kept.

import Router from '@koa/router'
import type { Context } from 'koa'
import type { ChorusState } from '../context.js'
import type { ServiceDeps } from '../deps.js'
import { requireAdmin } from '../auth/middleware.js'
import { readBody } from '../../shared/body.js'
import { ChorusError } from '../../errors.js'
import { LEXICON_LIMITS } from '../../text/lexicon/lexicon.js'
import { parseScope, scopeText } from '../../lexicons/scope.js'
import type { LexiconFormat } from '../../lexicons/read.js'
import type { StoredLexicon } from '../../lexicons/store.js'

const CONTENT_TYPES: Record<LexiconFormat, string> = { pls: 'application/pls+xml', json: 'application/json' }

function formatOf (contentType: string): LexiconFormat {
  const type = contentType.split(';')[0].trim().toLowerCase()
  if (['application/pls+xml', 'application/xml', 'text/xml'].includes(type)) return 'pls'
  if (type === 'application/json') return 'json'
  throw new ChorusError('ERR_UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Type ${JSON.stringify(contentType)}: send a PLS lexicon as application/pls+xml or a JSON map as application/json`, { status: 415 })
}

function view (lexicon: StoredLexicon): Record<string, unknown> {
  return {
    id: lexicon.id,
    scope: scopeText(lexicon.scope),
    latest_version_id: lexicon.versions.at(-1)?.id,
    versions: lexicon.versions.map(v => ({ version_id: v.id, created: v.created, format: v.format, entries: v.entries, ...(v.language === undefined ? {} : { language: v.language }) }))
  }
}

export function lexiconsAdminRoutes (deps: ServiceDeps): Router<ChorusState> {
  const { lexicons, speech } = deps
  const router = new Router<ChorusState>()
  const admin = requireAdmin(deps.config.adminToken)
  const route = (name: string) => async (ctx: Context & { state: ChorusState }, next: () => Promise<unknown>) => {
    ctx.state.route = name
    await next()
  }
  router.get('admin-lexicons', '/admin/lexicons', admin, route('/admin/lexicons'), async ctx => {
    ctx.body = { lexicons: lexicons.list().map(view) }
  })
  router.post('admin-lexicon-install', '/admin/lexicons/:id', admin, route('/admin/lexicons/:id'), async ctx => {
    const format = formatOf(ctx.get('Content-Type'))
    const scope = parseScope(typeof ctx.query.scope === 'string' ? ctx.query.scope : undefined, 'scope (query)')
    const text = await readBody(ctx.req, LEXICON_LIMITS.bytes)
    const { lexicon, version } = await lexicons.install(ctx.params.id, text, format, scope,
      (parsed, chosen) => speech.checkLexicon(parsed, chosen.kind === 'voice' ? chosen.voice : undefined))
    ctx.status = 201
    ctx.body = { ...view(lexicon), version_id: version.id, entries: version.entries }
  })
  router.get('admin-lexicon', '/admin/lexicons/:id', admin, route('/admin/lexicons/:id'), async ctx => {
    ctx.body = view(lexicons.get(ctx.params.id))
  })
  router.get('admin-lexicon-version', '/admin/lexicons/:id/:version', admin, route('/admin/lexicons/:id/:version'), async ctx => {
    const { text, format } = await lexicons.source(ctx.params.id, ctx.params.version)
    ctx.type = CONTENT_TYPES[format]
    ctx.body = text
  })
  router.delete('admin-lexicon-remove', '/admin/lexicons/:id', admin, route('/admin/lexicons/:id'), async ctx => {
    await lexicons.remove(ctx.params.id)
    ctx.status = 204
  })
  router.delete('admin-lexicon-version-remove', '/admin/lexicons/:id/:version', admin, route('/admin/lexicons/:id/:version'), async ctx => {
    await lexicons.remove(ctx.params.id, ctx.params.version)
    ctx.status = 204
  })
  return router
}
