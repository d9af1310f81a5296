// Reads a JSON request body with the shared body reader. A body without
// Content-Type that holds JSON is accepted (older clients send none); any
// other content type gets 415.

import type { Context } from 'koa'
import { invalidJson } from '../synthesis/errors.js'
import { unsupportedMediaType } from './errors.js'
import { readBody } from '../shared/body.js'

function isJsonType (contentType: string): boolean {
  const type = contentType.split(';')[0].trim().toLowerCase()
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

/** Room for the longest allowed text as JSON, with escapes. */
export function textBodyLimit (maxTextLength: number): number {
  return Math.max(64 * 1024, maxTextLength * 12)
}

export async function readJsonBody (ctx: Context, limitBytes: number): Promise<unknown> {
  const contentType = ctx.get('Content-Type')
  if (contentType !== '' && !isJsonType(contentType)) throw unsupportedMediaType(contentType)
  const text = await readBody(ctx.req, limitBytes)
  try {
    return JSON.parse(text)
  } catch {
    throw invalidJson()
  }
}
