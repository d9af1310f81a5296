// Loading FFmpeg's libavcodec at run time: the addon does not depend on it
// to load; a library it cannot use is refused with a typed error that names
// the path and the cause, and leaves the process free to try again; the
// right one loads once per process. In this order, in its own process: a
// loaded libavcodec stays loaded.

import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { AAC_BITRATE, createAacEncoder } from '../../src/audio/aac.js'
import { AVCODEC_LIBRARY, loadAvcodec } from '../../src/audio/avcodec.js'
import { EncodingError } from '../../src/audio/errors.js'
import { loadCodecs } from '../../src/audio/native-codecs.js'
import { BINARY_CANDIDATES } from '../../src/engine/native.js'
import { programPath, unless, whyUnavailable } from '../helpers/test-tools.js'

const scratch = await mkdtemp(join(tmpdir(), 'chorus-avcodec-'))
t.teardown(() => rm(scratch, { recursive: true, force: true }))

const binary = BINARY_CANDIDATES.find(existsSync) ?? BINARY_CANDIDATES[0]
t.test('the addon does not depend on FFmpeg to load', unless(whyUnavailable(['readelf', 'nm'])), async t => {
  const dynamic = spawnSync(programPath('readelf'), ['-d', binary])
  const symbols = spawnSync(programPath('nm'), ['-D', '--undefined-only', binary])
  t.equal(dynamic.status, 0, `readelf read ${binary}`)
  t.equal(symbols.status, 0, `nm read ${binary}`)
  t.notMatch(dynamic.stdout.toString(), /libav|libsw/, 'no FFmpeg library among its NEEDED entries')
  // A direct call would leave an undefined av* symbol, resolved (and failing) only when called.
  const ffmpeg = symbols.stdout.toString().split('\n').filter(line => /\s(av|avcodec|avutil|swr)_\w+$/.test(line))
  t.same(ffmpeg, [], 'no FFmpeg function is called by name')
})

t.test('a library that cannot be used is refused, naming the path and the cause', async t => {
  t.match(loadAvcodec('/nonexistent/libavcodec.so.59'), {
    loaded: false,
    library: '/nonexistent/libavcodec.so.59',
    reason: /^Cannot load FFmpeg's libavcodec from \/nonexistent\/libavcodec\.so\.59: .*No such file or directory/
  })
  const text = join(scratch, 'not-a-library.so')
  await writeFile(text, 'not ELF')
  t.match(loadAvcodec(text), { loaded: false, reason: /^Cannot load FFmpeg's libavcodec from .*not-a-library\.so: / })
  t.match(loadAvcodec('libz.so.1'), { loaded: false, reason: 'No avcodec_version in libz.so.1: not a libavcodec this addon can use' })
  t.throws(() => loadCodecs().loadAvcodec(42 as unknown as string), { code: 'ERR_INVALID_ARGUMENT' })
})

// A stand-in for FFmpeg 6.0's libavcodec: 60.3.100, on libavutil 58.
t.test('a libavcodec of another major version is refused before it is used', unless(whyUnavailable(['cc'])), async t => {
  const future = join(scratch, 'libavcodec.so.60')
  await writeFile(join(scratch, 'future.c'), 'unsigned avcodec_version(void) { return (60u << 16) | (3u << 8) | 100u; }\nunsigned avutil_version(void) { return 58u << 16; }\n')
  t.equal(spawnSync(programPath('cc'), ['-shared', '-fPIC', '-o', future, join(scratch, 'future.c')]).status, 0, 'the stand-in library was built')
  t.match(loadAvcodec(future), {
    loaded: false,
    reason: `libavcodec 60.3.100 at ${future} is not supported: this addon is built for libavcodec 59.x (FFmpeg 5.1, Debian 12's libavcodec59) and refuses another major version, whose structures differ`
  })
})

t.test('without libavcodec, the encoder is refused with a typed error', async t => {
  t.throws(() => new (loadCodecs().AacEncoder)(22050, AAC_BITRATE), { code: 'ERR_AVCODEC_LOAD', message: 'FFmpeg\'s libavcodec has not been loaded' })
  await t.rejects(createAacEncoder(22050), EncodingError)
})

t.test('libavcodec 59 loads once per process', unless(whyUnavailable([], { avcodec: true })), async t => {
  const avcodec = loadAvcodec()
  t.match(avcodec, { library: AVCODEC_LIBRARY, version: /^59\.\d+\.\d+$/, license: /GPL/ })
  t.same(loadAvcodec(), avcodec, 'again: the same library')
  t.match(loadAvcodec('/nonexistent/libavcodec.so.59'), { loaded: false, reason: `libavcodec is already loaded from ${AVCODEC_LIBRARY} and cannot be loaded again from /nonexistent/libavcodec.so.59` })
})
