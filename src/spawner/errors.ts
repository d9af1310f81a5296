// Refusals of the reference spawner, one factory per status it uses. The
// messages are what the real spawner says; its bodies are `{"error": ...}`.

import { ChorusError } from '../errors.js'

export function badRequest (message: string): ChorusError {
  return new ChorusError('ERR_BAD_REQUEST', message, { status: 400 })
}

export function forbidden (message: string): ChorusError {
  return new ChorusError('ERR_FORBIDDEN', message, { status: 403 })
}

export function botNotFound (name: string): ChorusError {
  return new ChorusError('ERR_BOT_NOT_FOUND', `Bot not found: ${name}.`, { status: 404 })
}

export function conflict (message: string): ChorusError {
  return new ChorusError('ERR_CONFLICT', message, { status: 409 })
}
