// GET /: the playground, static files from public/, read once at start-up
// (a few kilobytes) and served from memory. No CDN: the page works offline.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Router from '@koa/router'
import { PACKAGE_ROOT } from '../../package-root.js'
import type { ChorusState } from '../context.js'

const FILES: ReadonlyArray<[route: string, file: string, type: string]> = [
  ['/', 'index.html', 'text/html; charset=utf-8'],
  ['/playground.js', 'playground.js', 'text/javascript; charset=utf-8'],
  ['/playground.css', 'playground.css', 'text/css; charset=utf-8']
]

export function playgroundRoutes (): Router<ChorusState> {
  const router = new Router<ChorusState>()
  for (const [route, file, type] of FILES) {
    const body = readFileSync(join(PACKAGE_ROOT, 'public', file))
    router.get(`playground:${file}`, route, ctx => {
      ctx.state.route = route
      ctx.type = type
      ctx.set('Cache-Control', 'no-cache')
      ctx.body = body
    })
  }
  return router
}
