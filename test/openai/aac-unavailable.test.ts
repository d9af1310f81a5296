// A service whose libavcodec does not load (CHORUS_AVCODEC_LIBRARY names a
// missing file, as on a machine without FFmpeg) starts and serves every
// other format; AAC gets a 400 that says what to install, in OpenAI's shape
// on /v1/audio/speech and in the service's own on /tts, before any speech is
// made; the log says why, with the path, once. Its own process: a loaded
// libavcodec stays loaded.

import OpenAI, { APIError } from 'openai'
import t from 'tap'
import { postTts, startTestService } from '../helpers/service.js'

const MISSING = '/nonexistent/libavcodec.so.59'
const service = await startTestService({ CHORUS_AVCODEC_LIBRARY: MISSING })
t.teardown(() => service.stop())
const client = new OpenAI({ baseURL: `${service.url}/v1`, apiKey: 'x', maxRetries: 0 })
const MESSAGE = 'aac is not available here: it needs FFmpeg\'s libavcodec 59, which did not load ' +
  '(install Debian 12\'s libavcodec59, or set CHORUS_AVCODEC_LIBRARY; the log says why). ' +
  'Available formats: mp3, opus, flac, wav, pcm'

const loadLines = (): Array<Record<string, unknown>> => service.logs.filter(l => typeof l.msg === 'string' && l.msg.startsWith('libavcodec'))

t.test('nothing is loaded until AAC is asked for', async t => {
  t.same(loadLines(), [])
})

t.test('the OpenAI client\'s aac gets a 400 APIError that says what to install', async t => {
  const error = await client.audio.speech.create({ model: 'tts-1', input: 'Hello.', voice: 'alloy', response_format: 'aac' }).catch(e => e)
  t.type(error, APIError)
  t.equal(error.status, 400)
  t.match(error.error, { message: MESSAGE, type: 'invalid_request_error', param: 'response_format', code: 'format_unavailable' })
  t.notOk(service.logs.some(l => l.msg === 'synthesis' && l.format === 'aac'), 'refused before any synthesis')
  t.match(loadLines(), [{
    level: 40,
    msg: 'libavcodec did not load: aac is not available (apt-get install libavcodec59, or set CHORUS_AVCODEC_LIBRARY)',
    library: MISSING,
    reason: /^Cannot load FFmpeg's libavcodec from \/nonexistent\/libavcodec\.so\.59: .*No such file or directory/
  }], 'the log says why, naming the library')
})

t.test('every other format is still served', async t => {
  const mp3 = await client.audio.speech.create({ model: 'tts-1', input: 'Hello.', voice: 'alloy', response_format: 'mp3' })
  t.equal(mp3.headers.get('content-type'), 'audio/mpeg')
  t.ok((await mp3.arrayBuffer()).byteLength > 0)
})

t.test('POST /tts answers the same refusal in its own shape', async t => {
  const reply = await postTts(service.url, { text: 'Hello.', format: 'aac' })
  t.equal(reply.status, 400)
  t.same(reply.json, { error: MESSAGE, code: 'ERR_FORMAT_UNAVAILABLE', format: 'aac' })
  t.equal(loadLines().length, 1, 'tried once, logged once')
})
