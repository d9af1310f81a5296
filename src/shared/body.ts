// The bounded body reader of every server: the whole body as UTF-8, refused
// once it passes the route's limit, so no request can make the server hold
// more than that. Every server answers it the same way (413,
// ERR_BODY_TOO_LARGE, the wording docs/api.md documents).

import type { IncomingMessage } from 'node:http'
import { isChorusError } from '../errors.js'
import { bodyTooLarge, requestAborted } from './errors.js'

/** Reads the whole body as UTF-8, refusing (413) more than `limit` bytes. */
export async function readBody (request: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) throw bodyTooLarge(limit)
  const chunks: Buffer[] = []
  let size = 0
  try {
    for await (const chunk of request) {
      const buffer = chunk as Buffer
      size += buffer.length
      if (size > limit) throw bodyTooLarge(limit)
      chunks.push(buffer)
    }
  } catch (error) {
    throw isChorusError(error) ? error : requestAborted(error)
  }
  return Buffer.concat(chunks).toString('utf8')
}
