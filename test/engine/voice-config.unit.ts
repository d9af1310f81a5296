import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { loadVoiceConfig, parseVoiceConfig, PiperVoice } from '../../src/engine/index.js'
import { VoiceConfigError, VoiceLoadError } from '../../src/engine/errors.js'
import { FIXTURES, testVoiceDir } from '../helpers/voices.js'

const good = JSON.parse(await readFile(join(FIXTURES, 'configs/en_GB-vctk-medium.onnx.json'), 'utf8'))

t.test('a real multi-speaker config parses into a typed VoiceConfig', async t => {
  const config = parseVoiceConfig(good, 'vctk')
  t.equal(config.sampleRate, 22050)
  t.equal(config.espeakVoice, 'en-gb-x-rp')
  t.equal(config.phonemeType, 'espeak')
  t.equal(config.numSpeakers, 109)
  t.equal(config.speakerIdMap.p239, good.speaker_id_map.p239)
  t.same(config.inference, { noiseScale: 0.333, lengthScale: 1.4, noiseW: 0.333 })
  t.same(config.phonemeIdMap._, [0])
})

t.test('defaults where a config is silent', async t => {
  const { inference: _i, phoneme_type: _t, num_speakers: _n, speaker_id_map: _s, phoneme_map: _p, ...rest } = good
  const config = parseVoiceConfig(rest, 'minimal')
  t.equal(config.phonemeType, 'espeak')
  t.equal(config.numSpeakers, 1)
  t.same(config.inference, { noiseScale: 0.667, lengthScale: 1, noiseW: 0.8 })
})

t.test('every broken field is named, with what was expected and what arrived', async t => {
  const without = (key: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== key))
  const cases: Array<[string, unknown, RegExp]> = [
    ['not an object', [1, 2], /Expected an object for \(root\) but received \[1,2\] \(array\)/],
    ['no audio', without('audio'), /Expected an object for audio but received undefined/],
    ['sample rate 0', { ...good, audio: { sample_rate: 0 } }, /Expected an integer from 8000 to 96000 \(Hz\) for audio\.sample_rate but received 0 \(number\)/],
    ['sample rate 2 GHz', { ...good, audio: { sample_rate: 2_000_000_000 } }, /Expected an integer from 8000 to 96000 \(Hz\) for audio\.sample_rate but received 2000000000/],
    ['sample rate string', { ...good, audio: { sample_rate: '22050' } }, /audio\.sample_rate but received "22050" \(string\)/],
    ['no phoneme_id_map', without('phoneme_id_map'), /Expected an object for phoneme_id_map but received undefined/],
    ['no pad', { ...good, phoneme_id_map: { '^': [1], $: [2] } }, /Expected an entry for "_" for phoneme_id_map/],
    ['bad ids', { ...good, phoneme_id_map: { ...good.phoneme_id_map, a: [-1] } }, /non-negative integers for phoneme_id_map\["a"\] but received \[-1\]/],
    ['multi-codepoint key', { ...good, phoneme_id_map: { ...good.phoneme_id_map, ab: [3] } }, /single-codepoint phoneme key for phoneme_id_map but received "ab"/],
    ['unknown phoneme_type', { ...good, phoneme_type: 'pinyin' }, /"espeak" or "text" for phoneme_type but received "pinyin"/],
    ['no espeak voice', { ...good, espeak: {} }, /non-empty string for espeak\.voice/],
    ['speaker beyond num_speakers', { ...good, num_speakers: 2, speaker_id_map: { a: 0, b: 5 } }, /integer from 0 to 1 for speaker_id_map\["b"\] but received 5/],
    ['negative noise', { ...good, inference: { noise_scale: -1 } }, /non-negative number for inference\.noise_scale but received -1/]
  ]
  for (const [name, json, message] of cases) {
    t.throws(() => parseVoiceConfig(json, '/voices/x.onnx.json'), { name: 'VoiceConfigError', code: 'ERR_VOICE_CONFIG', message }, name)
    t.throws(() => parseVoiceConfig(json, '/voices/x.onnx.json'), { message: /^Invalid voice config x\.onnx\.json: / }, `${name} names the file, not its folder`)
  }
})

t.test('missing, unreadable and malformed files', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-config-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await t.rejects(loadVoiceConfig(join(dir, 'nope.onnx.json')), { code: 'ERR_VOICE_CONFIG', message: /Cannot read voice config .*nope\.onnx\.json: file not found/ })
  await writeFile(join(dir, 'bad.onnx.json'), '{"audio": ')
  await t.rejects(loadVoiceConfig(join(dir, 'bad.onnx.json')), { code: 'ERR_VOICE_CONFIG', message: /bad\.onnx\.json: not valid JSON/ })
  await t.rejects(loadVoiceConfig(dir), VoiceConfigError, 'a folder is not a config')
  // A config linked to another file must not show that file's contents, nor the folder.
  await writeFile(join(dir, 'secret.txt'), 'root:x:0:0:root:/root:/bin/bash\n')
  await symlink(join(dir, 'secret.txt'), join(dir, 'linked.onnx.json'))
  const linked = await loadVoiceConfig(join(dir, 'linked.onnx.json')).catch((error: Error) => error)
  t.match(linked, { code: 'ERR_VOICE_CONFIG', message: 'Invalid voice config linked.onnx.json: not valid JSON' })
  t.notMatch((linked as Error).message, /root|bin\/bash/, 'no contents quoted')
  t.notMatch(JSON.stringify(linked), dir, 'no folder in the message or details')
})

t.test('model problems are VoiceLoadErrors naming the file', async t => {
  const voices = await testVoiceDir()
  const dir = await mkdtemp(join(tmpdir(), 'chorus-model-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'en_US-x-medium.onnx.json'), JSON.stringify(good))
  await t.rejects(PiperVoice.load(join(dir, 'en_US-x-medium.onnx')), { name: 'VoiceLoadError', message: /Cannot load model .*en_US-x-medium\.onnx/ })
  await writeFile(join(dir, 'en_US-x-medium.onnx'), 'this is not a protobuf')
  await t.rejects(PiperVoice.load(join(dir, 'en_US-x-medium.onnx')), VoiceLoadError)
  await t.rejects(PiperVoice.load(join(voices, 'foreign/en_US-foreign-medium.onnx')), { name: 'VoiceLoadError', message: /does not have Piper's signature/ })
  // A model without sid paired with a 109-speaker config is inconsistent.
  await writeFile(join(dir, 'en_US-y-medium.onnx'), await readFile(join(voices, 'en_US-probe-medium.onnx')))
  await writeFile(join(dir, 'en_US-y-medium.onnx.json'), JSON.stringify(good))
  await t.rejects(PiperVoice.load(join(dir, 'en_US-y-medium.onnx')), { name: 'VoiceLoadError', message: /no sid input but its config declares 109 speakers/ })
})
