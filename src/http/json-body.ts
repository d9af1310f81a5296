// Reads a JSON request body. A body without Content-Type that holds JSON is
// accepted (older clients send none); any other content type gets 415.

import type { Context } from 'koa'
import { BodyTooLargeError, InvalidJsonError, UnsupportedMediaTypeError } from '../errors.js'

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
  if (contentType !== '' && !isJsonType(contentType)) throw new UnsupportedMediaTypeError(contentType)
  const declared = Number(ctx.get('Content-Length'))
  if (Number.isFinite(declared) && declared > limitBytes) throw new BodyTooLargeError(limitBytes)
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length
    if (size > limitBytes) throw new BodyTooLargeError(limitBytes)
    chunks.push(chunk as Buffer)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new InvalidJsonError()
  }
}
