// The one HTTP client of the bot spawner: a ky instance created once, with
// an explicit timeout and a retry policy that only ever repeats GET, since
// creating, changing or deleting a bot twice is not harmless. Every body and
// error text it hands back has its secrets redacted first, whole, so that no
// later cut (the 240-character excerpt) can leave part of a secret behind.

import ky, { isHTTPError, isTimeoutError, type KyInstance } from 'ky'
import type { SpawnerClientConfig } from './config.js'
import { urlHost } from '../shared/config-values.js'
import type { BotName } from '../shared/bot-names.js'
import { redactSecrets } from './redact.js'

export type BotAction = 'start' | 'stop' | 'restart'

export interface CreateBotFields {
  level: string
  parent?: string
  email?: string
  model?: string
}

/** How a spawner call ended. Bodies are kept raw: tools hand them on
 * verbatim. A rejected answer's body may be only its start, since only an
 * excerpt of it is shown; a successful answer too long to read whole is
 * `unreachable`, since a cut JSON document is no answer. */
export type SpawnerOutcome =
  | { kind: 'ok', status: number, body: string }
  | { kind: 'rejected', status: number, reason: string, body: string }
  | { kind: 'unreachable', error: string }

export interface SpawnerClient {
  readonly baseUrl: string
  listBots: (signal?: AbortSignal) => Promise<SpawnerOutcome>
  getBot: (name: BotName, signal?: AbortSignal) => Promise<SpawnerOutcome>
  createBot: (name: BotName, fields: CreateBotFields, signal?: AbortSignal) => Promise<SpawnerOutcome>
  actOnBot: (name: BotName, action: BotAction, signal?: AbortSignal) => Promise<SpawnerOutcome>
  deleteBot: (name: BotName, signal?: AbortSignal) => Promise<SpawnerOutcome>
}

/** Longest wait between two GET attempts, whatever the retry count. */
const MAX_RETRY_DELAY_MS = 2000
/** A refusal's body is shown only as an excerpt (its first 240 characters):
 * this much of it covers the excerpt and any secret that starts within it,
 * which redaction must see whole. The rest is never received. */
export const REFUSAL_BODY_BYTES = 64 * 1024

/** `secrets`: more strings to redact besides the spawner token (the tool server's own token). */
export function createSpawnerClient (config: SpawnerClientConfig, secrets: ReadonlyArray<string | undefined> = []): SpawnerClient {
  const redacted = [config.token, ...secrets].filter((secret): secret is string => secret !== undefined && secret !== '')
  const baseUrl = `http://${urlHost(config.host)}:${config.port}/`
  const headers: Record<string, string> = { accept: 'application/json' }
  if (config.token !== undefined) headers.authorization = `Bearer ${config.token}`
  const api = ky.create({
    prefixUrl: baseUrl,
    headers,
    timeout: config.timeoutMs,
    retry: { limit: config.retries, methods: ['get'], backoffLimit: MAX_RETRY_DELAY_MS },
    // Redirects could carry the Authorization header to another host.
    redirect: 'error'
  })
  const send = async (method: string, path: string, form: URLSearchParams | undefined, signal: AbortSignal | undefined): Promise<SpawnerOutcome> =>
    redactOutcome(await request(api, config, { method, path, url: baseUrl + path, form, signal }), redacted)

  return {
    baseUrl,
    listBots: async (signal) => await send('GET', 'api/bot', undefined, signal),
    getBot: async (name, signal) => await send('GET', botPath(name), undefined, signal),
    createBot: async (name, fields, signal) => await send('POST', botPath(name), createForm(fields), signal),
    actOnBot: async (name, action, signal) => await send('PATCH', botPath(name), new URLSearchParams({ action }), signal),
    deleteBot: async (name, signal) => await send('DELETE', botPath(name), undefined, signal)
  }
}

function botPath (name: BotName): string {
  return `api/bot/${encodeURIComponent(name.first)}/${encodeURIComponent(name.last)}`
}

function createForm (fields: CreateBotFields): URLSearchParams {
  const form = new URLSearchParams({ level: fields.level })
  if (fields.parent !== undefined) form.set('parent', fields.parent)
  if (fields.email !== undefined) form.set('email', fields.email)
  if (fields.model !== undefined) form.set('model', fields.model)
  return form
}

interface Call {
  method: string
  path: string
  url: string
  form: URLSearchParams | undefined
  signal: AbortSignal | undefined
}

async function request (api: KyInstance, config: SpawnerClientConfig, call: Call): Promise<SpawnerOutcome> {
  const { timeoutMs, maxBodyBytes } = config
  // ky's timeout ends when the headers arrive; this guard bounds the body too.
  const bodyGuard = new AbortController()
  const signal = call.signal === undefined ? bodyGuard.signal : AbortSignal.any([call.signal, bodyGuard.signal])
  let response: Response
  try {
    // A URLSearchParams body is sent as application/x-www-form-urlencoded.
    response = await api(call.path, { method: call.method, body: call.form, signal })
  } catch (error) {
    if (!isHTTPError(error)) return { kind: 'unreachable', error: describeFailure(error, call, timeoutMs) }
    response = error.response
  }
  const timer = setTimeout(() => { bodyGuard.abort() }, timeoutMs)
  let body: BoundedText
  try {
    body = await readBounded(response, response.ok ? maxBodyBytes : Math.min(maxBodyBytes, REFUSAL_BODY_BYTES))
  } catch (error) {
    const cause = bodyGuard.signal.aborted ? `response body not received within ${timeoutMs} ms` : errorText(error)
    return { kind: 'unreachable', error: `${cause}: ${call.method} ${call.url}` }
  } finally {
    clearTimeout(timer)
  }
  if (!response.ok) return { kind: 'rejected', status: response.status, reason: response.statusText, body: body.text }
  if (body.cut) {
    return { kind: 'unreachable', error: `${response.status} answer's body is over ${maxBodyBytes} bytes (SPAWNER_MAX_BODY_BYTES) and was not read: ${call.method} ${call.url}` }
  }
  return { kind: 'ok', status: response.status, body: body.text }
}

interface BoundedText {
  text: string
  /** The body went on past the limit; the rest was never received. */
  cut: boolean
}

/**
 * At most `limit` bytes of the body, as text. Past the limit the stream is
 * cancelled, which closes the connection, so a spawner that answers with
 * hundreds of megabytes costs this process `limit` bytes, not the answer;
 * one that says so in Content-Length is not read at all. The bytes are
 * decoded once, at the end: a call holds its bytes while they arrive, and
 * their text only when they fit.
 */
async function readBounded (response: Response, limit: number): Promise<BoundedText> {
  if (response.body === null) return { text: '', cut: false }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (response.ok && declared > limit) {
    await response.body.cancel()
    return { text: '', cut: true }
  }
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let bytes = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return { text: decodeAll(chunks, bytes), cut: false }
    const room = limit - bytes
    if (value.byteLength > room) {
      await reader.cancel()
      // A cut answer of success is no answer: only a refusal's start is shown.
      if (response.ok) return { text: '', cut: true }
      chunks.push(value.subarray(0, room))
      return { text: decodeAll(chunks, limit), cut: true }
    }
    chunks.push(value)
    bytes += value.byteLength
  }
}

/** The chunks' bytes as UTF-8 text; an incomplete last character becomes U+FFFD. */
function decodeAll (chunks: readonly Uint8Array[], bytes: number): string {
  return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, bytes))
}

function redactOutcome (outcome: SpawnerOutcome, secrets: readonly string[]): SpawnerOutcome {
  if (secrets.length === 0) return outcome
  switch (outcome.kind) {
    case 'ok': return { ...outcome, body: redactSecrets(outcome.body, secrets) }
    case 'rejected': return { ...outcome, reason: redactSecrets(outcome.reason, secrets), body: redactSecrets(outcome.body, secrets) }
    case 'unreachable': return { kind: 'unreachable', error: redactSecrets(outcome.error, secrets) }
  }
}

/** Names the request, as ky's own messages do, and the low-level cause fetch hides. */
function describeFailure (error: unknown, call: Call, timeoutMs: number): string {
  if (isTimeoutError(error)) return `Request timed out after ${timeoutMs} ms: ${call.method} ${call.url}`
  return `${errorText(error)}: ${call.method} ${call.url}`
}

function errorText (error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = causeText(error.cause)
  return cause === undefined ? error.message : `${error.message} (${cause})`
}

function causeText (cause: unknown): string | undefined {
  if (cause instanceof AggregateError && cause.message === '') return causeText(cause.errors[0]) ?? codeOf(cause)
  if (cause instanceof Error) return cause.message !== '' ? cause.message : codeOf(cause)
  return undefined
}

function codeOf (error: Error): string | undefined {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? code : undefined
}
