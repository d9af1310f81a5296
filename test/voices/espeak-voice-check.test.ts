// A config whose espeak.voice espeak-ng does not have could never phonemize:
// the scan leaves it out as broken, with the reason, and a request for it is
// a clear ERR_VOICE_BROKEN, not an internal error.

import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { request, postTts, startTestService } from '../helpers/service.js'
import { eventually } from '../helpers/hang-guard.js'
import { testVoiceDir } from '../helpers/voices.js'

const NAME = 'en_US-noespeak-medium'

t.test('an unknown espeak.voice is broken at the scan', async t => {
  const service = await startTestService({}, ['en_US-probe-medium'])
  t.teardown(service.stop)
  const source = await testVoiceDir()
  const config = JSON.parse(await readFile(join(source, 'en_US-probe-medium.onnx.json'), 'utf8')) as { espeak: { voice: string } }
  config.espeak.voice = 'xx-no-such-voice'
  // The config first: a scan between the two writes must not see a model without it.
  await writeFile(join(service.voiceDir, `${NAME}.onnx.json`), JSON.stringify(config))
  await writeFile(join(service.voiceDir, `${NAME}.onnx`), await readFile(join(source, 'en_US-probe-medium.onnx')))
  const reason = `espeak-ng has no voice named "xx-no-such-voice" (espeak.voice in ${NAME}.onnx.json)`

  let listing: { voices: string[], broken: Array<{ name: string, reason: string }> } | undefined
  // The folder is rescanned every 0.2 s: wait for the scan to have seen the files.
  // Until a scan has seen both files; a scan in between may list it for another reason.
  await eventually('the scan to see both files', async () => {
    listing = (await request(`${service.url}/voices`)).json
    return listing?.broken.some(voice => voice.name === NAME && voice.reason === reason) === true
  }, 100)
  t.notOk(listing?.voices.includes(NAME), 'not listed as a voice')
  t.same(listing?.broken.find(voice => voice.name === NAME)?.reason, reason)

  const reply = await postTts(service.url, { text: 'Hello.', voice: NAME })
  t.equal(reply.status, 500)
  t.match(reply.json, { code: 'ERR_VOICE_BROKEN', error: /espeak-ng has no voice named "xx-no-such-voice"/ })
  t.equal((await postTts(service.url, { text: 'Hello.', voice: 'en_US-probe-medium' })).status, 200, 'the other voice still speaks')
})
