// Errors in OpenAI's shape for the /v1/audio and /v1/models routes:
//   {"error": {"message", "type", "param", "code"}}
// so that OpenAI clients surface them as their own APIError. The statuses
// are the service's own (400, 413, 415, 503 with Retry-After, 504); `code`
// is our catalogue's code in OpenAI's lower-case style.

import type { Middleware } from 'koa'
import type { ChorusError } from '../errors.js'
import { INTERNAL_ERROR_MESSAGE, jsonErrors } from '../shared/json-errors.js'
import type { RequestLogState } from '../shared/request-id.js'

export interface OpenAIErrorBody {
  error: { message: string, type: string, param: string | null, code: string | null }
}

/** The request field an error is about, where our error knows it. */
function param (error: ChorusError): string | null {
  if (typeof error.details.field === 'string') return error.details.field
  if (error.code === 'ERR_VOICE_NOT_FOUND') return 'voice'
  if (error.code === 'ERR_TEXT_TOO_LONG') return 'input'
  if (error.code === 'ERR_FORMAT_UNAVAILABLE') return 'response_format'
  return null
}

function openAIErrorBody (error: ChorusError): OpenAIErrorBody {
  return {
    error: {
      message: error.message,
      type: error.status < 500 ? 'invalid_request_error' : 'server_error',
      param: param(error),
      code: error.code.replace(/^ERR_/, '').toLowerCase()
    }
  }
}

/** Put before an OpenAI route's handler: the shared error middleware
 * (hang-ups, errors after the headers, bugs) with OpenAI's bodies. */
export function openAIErrors (): Middleware<RequestLogState> {
  return jsonErrors({
    known: error => openAIErrorBody(error) as unknown as Record<string, unknown>,
    internal: { error: { message: INTERNAL_ERROR_MESSAGE, type: 'server_error', param: null, code: 'internal' } },
    log: ctx => (ctx.state as RequestLogState).log
  })
}
