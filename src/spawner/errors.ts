// Refusals of the reference spawner, one factory per status it uses. The
// messages are what the real spawner says; its bodies are `{"error": ...}`.

import { ChorusError } from '../errors.js'

class SpawnerApiError extends ChorusError {}

export function badRequest (message: string): SpawnerApiError {
  return new SpawnerApiError('ERR_BAD_REQUEST', message, { status: 400 })
}

export function forbidden (message: string): SpawnerApiError {
  return new SpawnerApiError('ERR_FORBIDDEN', message, { status: 403 })
}

export function botNotFound (name: string): SpawnerApiError {
  return new SpawnerApiError('ERR_BOT_NOT_FOUND', `Bot not found: ${name}.`, { status: 404 })
}

export function conflict (message: string): SpawnerApiError {
  return new SpawnerApiError('ERR_CONFLICT', message, { status: 409 })
}
