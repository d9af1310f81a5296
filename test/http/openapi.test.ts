// GET /openapi.json publishes the request fields and rules docs/api.md gives
// (written out in the test, not rebuilt from the code's schemas), and the
// validators agree with a standard JSON Schema validator (ajv) reading the
// published document on generated bodies: the OpenAI route's parser by
// calling it, /tts over HTTP.

import Ajv2020 from 'ajv/dist/2020.js'
import fc from 'fast-check'
import t from 'tap'
import type { Schema } from '../../src/shared/schema.js'
import { parseSpeechRequest, SPEECH_REQUEST } from '../../src/openai/speech-request.js'
import { TTS_REQUEST } from '../../src/synthesis/tts-request.js'
import { postTts, request, startTestService } from '../helpers/service.js'

const service = await startTestService()
t.teardown(() => service.stop())
const doc = (await request(`${service.url}/openapi.json`)).json
const ajv = new Ajv2020.default({ strict: false, allErrors: false })
for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema(schema as object, `#/components/schemas/${name}`)

/** A published schema without its descriptions: the rules a client reads. */
function rules (schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rules)
  if (schema === null || typeof schema !== 'object') return schema
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== 'description').map(([key, value]) => [key, key === 'enum' || key === 'required' ? value : rules(value)]))
}

const FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']
const TIMESTAMPS = { type: 'array', items: { type: 'string', enum: ['word', 'phoneme', 'viseme'] } }
// docs/api.md: lexicon ids and versions (at most 3 named), and ElevenLabs' locators.
const LEXICON_ID = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' }
const LEXICONS = { type: 'array', maxItems: 3, items: { anyOf: [LEXICON_ID, { type: 'object', required: ['id'], properties: { id: LEXICON_ID, version: LEXICON_ID } }] } }
const LOCATORS = { type: 'array', maxItems: 3, items: { type: 'object', required: ['pronunciation_dictionary_id'], properties: { pronunciation_dictionary_id: LEXICON_ID, version_id: LEXICON_ID } } }

t.test('the document: OpenAPI 3.1, every route, the request fields and rules docs/api.md gives', async t => {
  t.equal(doc.openapi, '3.1.0')
  t.same(Object.keys(doc.paths).sort(), ['/', '/admin/lexicons', '/admin/lexicons/{id}', '/admin/lexicons/{id}/{version}', '/admin/voices', '/admin/voices/{name}', '/health', '/metrics', '/openapi.json', '/tts', '/v1/audio/speech', '/v1/audio/voices', '/v1/heard/{id}', '/v1/models', '/v1/text-to-speech/{voice_id}', '/v1/text-to-speech/{voice_id}/stream', '/v1/text-to-speech/{voice_id}/stream/with-timestamps', '/v1/text-to-speech/{voice_id}/with-timestamps', '/v1/tts', '/v1/voices', '/voices'])
  // Written out here, not built from the code's schemas: a field or a bound
  // changed in the code shows as a difference from what clients were told.
  t.same(rules(doc.components.schemas.TtsRequest), {
    type: 'object',
    required: ['text'],
    properties: {
      text: { type: 'string', minLength: 1, pattern: '\\S' },
      voice: { type: 'string' },
      speaker: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }] },
      length_scale: { type: 'number', minimum: 0.1, maximum: 5 },
      noise_scale: { type: 'number', minimum: 0, maximum: 2 },
      noise_w: { type: 'number', minimum: 0, maximum: 2 },
      sentence_silence: { type: 'number', minimum: 0, maximum: 10, default: 0 },
      stream: { type: 'boolean', default: false },
      format: { type: 'string', enum: FORMATS, default: 'wav' },
      after: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
      normalize: { type: 'boolean', default: false },
      timestamps: TIMESTAMPS,
      ssml: { type: 'boolean', default: false },
      lexicons: LEXICONS,
      pronunciation_dictionary_locators: LOCATORS
    }
  }, 'TtsRequest')
  t.same(rules(doc.components.schemas.SpeechRequest), {
    type: 'object',
    required: ['model', 'input', 'voice'],
    properties: {
      model: { type: 'string', minLength: 1 },
      input: { type: 'string', minLength: 1, maxLength: 4096, pattern: '\\S' },
      voice: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1 } } }] },
      response_format: { type: 'string', enum: FORMATS, default: 'mp3' },
      speed: { type: 'number', minimum: 0.25, maximum: 4, default: 1 },
      instructions: { type: 'string' },
      stream_format: { type: 'string', enum: ['audio', 'sse'], default: 'audio' },
      normalize: { type: 'boolean', default: true },
      timestamps: TIMESTAMPS,
      lexicons: LEXICONS
    }
  }, 'SpeechRequest')
  // That the validators accept exactly what these allow: the properties below.
  t.same(Object.keys(doc.paths['/v1/audio/speech'].post.responses[200].content).sort(), ['application/json', 'audio/aac', 'audio/flac', 'audio/mpeg', 'audio/ogg', 'audio/pcm', 'audio/wav', 'text/event-stream'])
  t.ok(ajv.getSchema('#/components/schemas/OpenAIError'), 'every schema compiles')
})

/** Values around a field's rules: valid ones, boundary cases, wrong types. */
function near (schema: Schema): fc.Arbitrary<unknown> {
  if (schema.anyOf !== undefined) return fc.oneof(...schema.anyOf.map(near), fc.constant([1]))
  const wrong = fc.constantFrom<unknown>(null, true, [], {}, 3, 'x')
  switch (schema.type) {
    case 'string':
      if (schema.enum !== undefined) return fc.oneof(fc.constantFrom(...schema.enum), fc.constantFrom('ogg', 'MP3', ''), wrong)
      return fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '   ', ' a '), wrong)
    case 'number':
    case 'integer': {
      const min = schema.minimum ?? -10
      const max = schema.maximum ?? 10
      return fc.oneof(fc.double({ min: min - 1, max: max + 1, noNaN: true }), fc.integer({ min: Math.floor(min) - 1, max: Math.ceil(max) + 1 }), fc.constantFrom(min, max), wrong)
    }
    case 'boolean':
      return fc.oneof(fc.boolean(), wrong)
    case 'object':
      return fc.oneof(fc.record(Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, near(s)])), { requiredKeys: [] }), wrong)
    default:
      return wrong
  }
}

function bodies (schema: Schema, omit: string[] = []): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(schema.properties ?? {}).filter(([k]) => !omit.includes(k))
  return fc.record(Object.fromEntries(fields.map(([k, s]) => [k, near(s)])), { requiredKeys: [] })
}

t.test('POST /v1/audio/speech: the parser accepts exactly what the schema allows', async t => {
  const valid = ajv.getSchema('#/components/schemas/SpeechRequest')!
  fc.assert(fc.property(bodies(SPEECH_REQUEST), body => {
    let accepted = true
    try {
      parseSpeechRequest(body, 1_000_000)
    } catch {
      accepted = false
    }
    return accepted === valid(body)
  }), { numRuns: 2000, seed: 14 })
  t.pass('2000 generated bodies agree')
})

t.test('POST /tts: the service answers 200 exactly for bodies the schema allows', async t => {
  const valid = ajv.getSchema('#/components/schemas/TtsRequest')!
  // Voices and speakers depend on what is installed, so those fields stay out;
  // null means absent on /tts, as the schema's description says. So does
  // aac: a machine without FFmpeg's libavcodec answers it 400 (audio.md).
  // Whether a text is good SSML, and which lexicons exist, depend on the
  // text and on what is installed too: ssml and the lexicon fields stay out.
  const aacRefused = await service.deps.encoders.unavailable('aac') !== undefined
  await fc.assert(fc.asyncProperty(bodies(TTS_REQUEST, ['voice', 'speaker', 'ssml', 'lexicons', 'pronunciation_dictionary_locators']), async body => {
    const present = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null))
    const reply = await postTts(service.url, body)
    const expected = valid(present) && !(aacRefused && present.format === 'aac')
    if ((reply.status === 200) !== expected) throw new Error(`status ${reply.status} (${reply.body.toString().slice(0, 200)}) but ajv says ${String(valid(present))} for ${JSON.stringify(body)}`)
  }), { numRuns: 150, seed: 14 })
  t.pass('150 generated bodies agree')
})
