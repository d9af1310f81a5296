// The service's OpenAPI 3.1 document, built from the same request schemas
// the validators read (TTS_REQUEST, SPEECH_REQUEST) and the same format
// table (FORMAT_INFO), so the document cannot drift from what is enforced.

import { AUDIO_FORMATS, FORMAT_INFO } from '../audio/formats.js'
import { SPEECH_REQUEST } from '../openai/speech-request.js'
import { TTS_REQUEST } from '../synthesis/tts-request.js'
import { TIMING_SCHEMAS } from '../synthesis/timing/wire.js'

/** A request schema with the timing field, which the route reads itself (docs/timing.md). */
const withTiming = (schema: typeof TTS_REQUEST) => ({ ...schema, properties: { ...schema.properties, timestamps: TIMING_SCHEMAS.field } })

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: unknown) => ({ 'application/json': { schema } })
const audio = Object.fromEntries(AUDIO_FORMATS.map(f => [FORMAT_INFO[f].contentType, { schema: { type: 'string', format: 'binary' } }]))

function errors (schema: string, statuses: number[]): Record<string, unknown> {
  const why: Record<number, string> = {
    400: 'A field is missing or wrong, or the voice is not installed',
    401: 'No valid API key (with TTS_API_KEYS_FILE set)',
    403: 'A web page from an origin not on TTS_ALLOWED_ORIGINS',
    421: 'A Host name not on TTS_ALLOWED_HOSTS',
    429: 'Over a quota of the API key; see Retry-After',
    413: 'The text or body is longer than the service allows',
    415: 'The body is not JSON',
    503: 'Too many requests in progress; see Retry-After',
    504: 'The request took longer than TTS_TIMEOUT_SECONDS'
  }
  return Object.fromEntries(statuses.map(s => [String(s), { description: why[s], content: json(ref(schema)) }]))
}

/** The voice admin API (routes/voices-admin.ts): bearer TTS_ADMIN_TOKEN. */
function voiceAdminPaths (): Record<string, unknown> {
  const security = [{ adminToken: [] }]
  const refusal = (description: string) => ({ description, content: json(ref('Error')) })
  const denied = { 401: refusal('No or a wrong admin bearer token'), 403: refusal('No TTS_ADMIN_TOKEN on this service, or a page from a foreign origin') }
  const name = { name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: 'A voice name like en_US-lessac-medium' }
  return {
    '/admin/voices': { get: { summary: 'The voice catalogue with what is installed or installing', security, responses: { 200: { description: 'Catalogue voices with their state', content: json({ type: 'object' }) }, ...denied } } },
    '/admin/voices/{name}': {
      post: {
        summary: 'Install a catalogue voice from TTS_VOICE_SOURCE, size and md5 checked',
        security,
        parameters: [name],
        responses: { 200: { description: 'Already installed, intact', content: json({ type: 'object' }) }, 201: { description: 'Installed', content: json({ type: 'object' }) }, 400: refusal('Not a voice name'), ...denied, 404: refusal('Not in the catalogue'), 409: refusal('The voice folder is read-only'), 502: refusal('The download failed or did not match the catalogue; nothing was installed') }
      },
      delete: {
        summary: 'Remove an installed voice',
        security,
        parameters: [name],
        responses: { 204: { description: 'Removed' }, 400: refusal('Not a voice name'), ...denied, 404: refusal('Not installed'), 409: refusal('Being installed, or the voice folder is read-only') }
      }
    }
  }
}

/** The lexicon admin API (routes/lexicons-admin.ts), as ElevenLabs names its dictionaries: id and version_id. */
function lexiconAdminPaths (): Record<string, unknown> {
  const security = [{ adminToken: [] }]
  const refusal = (description: string) => ({ description, content: json(ref('Error')) })
  const denied = { 401: refusal('No or a wrong admin bearer token'), 403: refusal('No TTS_ADMIN_TOKEN on this service, or a page from a foreign origin') }
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' } }
  const version = { name: 'version', in: 'path', required: true, schema: { type: 'string' }, description: 'A version_id (v1, v2, …)' }
  const lexicon = json({ type: 'object' })
  return {
    '/admin/lexicons': { get: { summary: 'Every installed lexicon with its scope and versions', security, responses: { 200: { description: 'The lexicons', content: lexicon }, ...denied } } },
    '/admin/lexicons/{id}': {
      post: {
        summary: 'A new version of a lexicon: a W3C PLS 1.0 file or a JSON map of word to "/ipa/" or respelling (docs/pronunciation.md)',
        security,
        parameters: [id, { name: 'scope', in: 'query', schema: { type: 'string' }, description: 'named (default), global, voice:<voice name> or key:<API key name>' }],
        requestBody: { required: true, content: { 'application/pls+xml': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object' } } } },
        responses: { 201: { description: 'Installed: its id and the new version_id', content: lexicon }, 400: refusal('Not a lexicon, or a phoneme a voice cannot speak (the symbol, the entry, the voice)'), ...denied, 409: refusal('The store holds its cap of lexicons'), 413: refusal('Over 1 MiB'), 415: refusal('Neither PLS nor JSON') }
      },
      get: { summary: 'One lexicon', security, parameters: [id], responses: { 200: { description: 'Its scope and versions', content: lexicon }, ...denied, 404: refusal('Not installed') } },
      delete: { summary: 'Remove a lexicon, every version', security, parameters: [id], responses: { 204: { description: 'Removed' }, ...denied, 404: refusal('Not installed') } }
    },
    '/admin/lexicons/{id}/{version}': {
      get: { summary: 'A version\'s file as uploaded', security, parameters: [id, version], responses: { 200: { description: 'PLS or JSON', content: { 'application/pls+xml': { schema: { type: 'string' } }, 'application/json': { schema: { type: 'object' } } } }, ...denied, 404: refusal('No such version') } },
      delete: { summary: 'Remove one version', security, parameters: [id, version], responses: { 204: { description: 'Removed' }, ...denied, 404: refusal('No such version') } }
    }
  }
}

/** ElevenLabs' HTTP routes (their SDK's names; docs/protocols.md) and what a
 * barged-in listener heard. The sockets (ElevenLabs', Cartesia's, Deepgram's)
 * are not HTTP operations: docs/websocket.md and docs/protocols.md. */
function protocolPaths (): Record<string, unknown> {
  const voiceId = { name: 'voice_id', in: 'path', required: true, schema: { type: 'string' }, description: 'A voice name, or an OpenAI voice name mapped to one' }
  const outputFormat = { name: 'output_format', in: 'query', schema: { type: 'string', default: 'mp3_44100_128' }, description: 'ElevenLabs\' names: pcm_<rate>, mp3_<rate>_<kbps>, ulaw_8000, alaw_8000, …' }
  const body = { required: true, content: json({ type: 'object', required: ['text'], properties: { text: { type: 'string' }, voice_settings: { type: 'object', properties: { speed: { type: 'number' } } }, pronunciation_dictionary_locators: { type: 'array', items: { type: 'object' } }, model_id: { type: 'string', description: 'Accepted and ignored' } } }) }
  const failures = errors('Error', [400, 401, 403, 404, 413, 421, 429, 503, 504])
  const speech = (summary: string, content: Record<string, unknown>) => ({ post: { summary, parameters: [voiceId, outputFormat], requestBody: body, responses: { 200: { description: summary, content }, ...failures } } })
  const timed = json({ type: 'object', properties: { audio_base64: { type: 'string' }, alignment: { type: 'object' }, normalized_alignment: { type: 'object' } } })
  return {
    '/v1/text-to-speech/{voice_id}': speech('ElevenLabs\' text to speech: the whole audio', audio),
    '/v1/text-to-speech/{voice_id}/stream': speech('ElevenLabs\' text to speech, streamed', audio),
    '/v1/text-to-speech/{voice_id}/with-timestamps': speech('The audio base64-encoded with its character alignment', timed),
    '/v1/text-to-speech/{voice_id}/stream/with-timestamps': speech('Streamed: one JSON object per line, each an audio chunk with its alignment', json({ type: 'string' })),
    '/v1/voices': { get: { summary: 'Voices in ElevenLabs\' shape', responses: { 200: { description: 'Voices', content: json({ type: 'object', properties: { voices: { type: 'array', items: { type: 'object' } } } }) }, ...errors('Error', [401, 403, 421]) } } },
    '/v1/heard/{id}': {
      get: {
        summary: 'What the listener heard of a streamed answer cut short (its X-Request-Id), for the key that asked for it',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }, { name: 'audio_played_ms', in: 'query', schema: { type: 'number', minimum: 0 }, description: 'The client\'s playback position; without it, estimated from the audio sent' }],
        responses: { 200: { description: 'The last word heard and the text spoken and left', content: json({ type: 'object', properties: { request_id: { type: 'string' }, audio_played_ms: { type: 'integer' }, audio_sent_ms: { type: 'integer' }, last_word: { type: ['string', 'null'] }, text_spoken: { type: 'string' }, text_remaining: { type: 'string' } } }) }, ...errors('Error', [400, 401, 404]) }
      }
    }
  }
}

export function openApiDocument (version: string): Record<string, unknown> {
  const synthesis = {
    requestBody: { required: true, content: json(ref('TtsRequest')) },
    responses: { 200: { description: 'The speech, WAV unless another format was asked for; with timestamps, JSON (whole) or Server-Sent Events (streamed)', content: { ...audio, ...json(ref('Timing')), 'text/event-stream': { schema: { type: 'string' } } } }, ...errors('Error', [400, 401, 403, 413, 415, 421, 429, 503, 504]) }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Chorus text-to-speech service', version, license: { name: 'GPL-3.0-or-later', identifier: 'GPL-3.0-or-later' } },
    paths: {
      '/tts': { post: { summary: 'Speak text with a Piper voice', ...synthesis } },
      '/v1/tts': { post: { summary: 'The same as /tts', ...synthesis } },
      '/v1/audio/speech': {
        post: {
          summary: 'OpenAI\'s speech API',
          requestBody: { required: true, content: json(ref('SpeechRequest')) },
          responses: {
            200: { description: 'The speech in response_format, streamed; or, with stream_format sse, Server-Sent Events; with timestamps and no sse, JSON', content: { ...audio, ...json(ref('Timing')), 'text/event-stream': { schema: { type: 'string' } } } },
            ...errors('OpenAIError', [400, 401, 403, 413, 415, 421, 429, 503, 504])
          }
        }
      },
      '/v1/models': { get: { summary: 'Model ids: OpenAI\'s TTS models and every installed voice', responses: { 200: { description: 'A list in OpenAI\'s shape', content: json({ type: 'object', properties: { object: { const: 'list' }, data: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, object: { const: 'model' }, created: { type: 'integer' }, owned_by: { type: 'string' } } } } } }) } } } },
      '/v1/audio/voices': { get: { summary: 'OpenAI voice names (with the voice each maps to now) and installed voices', responses: { 200: { description: 'Voices for pickers', content: json({ type: 'object', properties: { voices: { type: 'array', items: ref('VoiceEntry') } } }) } } } },
      '/voices': { get: { summary: 'Installed voices with details', responses: { 200: { description: 'Voice names, the default voice and details', content: json({ type: 'object' }) } } } },
      '/health': { get: { summary: 'Liveness, voices and load', responses: { 200: { description: 'Status', content: json({ type: 'object' }) } } } },
      '/metrics': { get: { summary: 'Prometheus metrics', responses: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
      ...voiceAdminPaths(),
      ...lexiconAdminPaths(),
      ...protocolPaths(),
      '/openapi.json': { get: { summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } } } },
      '/': { get: { summary: 'The playground: a page to type text and listen', responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } } } }
    },
    components: {
      securitySchemes: { adminToken: { type: 'http', scheme: 'bearer', description: 'TTS_ADMIN_TOKEN' } },
      schemas: {
        TtsRequest: withTiming(TTS_REQUEST),
        SpeechRequest: withTiming(SPEECH_REQUEST),
        Timing: TIMING_SCHEMAS.events,
        Error: { type: 'object', required: ['error', 'code'], properties: { error: { type: 'string', description: 'A message for people' }, code: { type: 'string', description: 'A machine code, like ERR_INVALID_ARGUMENT' }, field: { type: 'string' }, expected: { type: 'string' } } },
        OpenAIError: { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['message', 'type', 'param', 'code'], properties: { message: { type: 'string' }, type: { type: 'string', enum: ['invalid_request_error', 'server_error'] }, param: { type: ['string', 'null'] }, code: { type: ['string', 'null'] } } } } },
        VoiceEntry: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, type: { enum: ['openai', 'piper', 'builtin'] }, language: { type: ['string', 'null'] }, speakers: { type: 'array', items: { type: 'string' } }, voice: { type: 'string' }, speaker: { type: ['integer', 'string', 'null'] } } }
      }
    }
  }
}
