// GET /openapi.json: the service's API description (see ../openapi.ts).

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Router from '@koa/router'
import { PACKAGE_ROOT } from '../../package-root.js'
import type { ChorusState } from '../context.js'
import { openApiDocument } from '../openapi.js'

export function openApiRoutes (): Router<ChorusState> {
  const { version } = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
  const document = openApiDocument(version)
  const router = new Router<ChorusState>()
  router.get('openapi', '/openapi.json', ctx => {
    ctx.state.route = '/openapi.json'
    ctx.body = document
  })
  return router
}
