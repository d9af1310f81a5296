// The shared settings reader: flags over variables, one trimming rule, and
// errors that name the flag or variable in the one message format.

import t from 'tap'
import { hostSetting, integerSetting, numberSetting, parseCommandLine, parseFlags, pickSetting, tokenSetting } from '../../src/shared/config-values.js'

t.test('every value is trimmed; a variable blank after trimming is unset', async t => {
  t.same(pickSetting({}, 'port', { PORT: ' 9001\n' }, ['PORT']), { value: '9001', name: 'PORT' })
  t.same(pickSetting({ port: ' 80 ' }, 'port', { PORT: '9001' }, ['PORT']), { value: '80', name: '--port' }, 'the flag wins, trimmed')
  t.same(pickSetting({}, 'port', { A: ' \t', B: 'b' }, ['A', 'B']), { value: 'b', name: 'B' }, 'a blank variable falls through to the next')
  t.equal(pickSetting({}, 'port', { A: '' }, ['A']), undefined)
  t.equal(integerSetting(pickSetting({}, 'port', { PORT: ' 8080 ' }, ['PORT']), 1, 65535, 1), 8080)
  t.equal(hostSetting(pickSetting({}, 'host', { HOST: '  127.0.0.1\n' }, ['HOST']), 'x'), '127.0.0.1')
  t.equal(tokenSetting(pickSetting({ token: '   ' }, 'token', {}, [])), undefined, 'a blank token flag is no token')
})

t.test('errors name the source and quote the trimmed value', async t => {
  t.throws(() => integerSetting(pickSetting({}, 'port', { PORT: ' 0x1f ' }, ['PORT']), 1, 65535, 1),
    { code: 'ERR_CONFIG', message: 'Expected an integer from 1 to 65535 for PORT but received "0x1f" (string)' })
  t.throws(() => integerSetting(pickSetting({ port: '8e3' }, 'port', {}, []), 1, 65535, 1),
    { message: 'Expected an integer from 1 to 65535 for --port but received "8e3" (string)' })
})

t.test('hosts: names, IPv4 and IPv6 addresses; digits and dots that are no IPv4 address are refused', async t => {
  const host = (value: string) => hostSetting({ value, name: 'TTS_HTTP_HOST' }, 'x')
  for (const good of ['0.0.0.0', '127.0.0.1', '255.255.255.255', 'localhost', 'tts.example.org', 'chorus_tts', '::', '::1', 'fe80::1']) t.equal(host(good), good)
  t.equal(host('[::1]'), '::1', 'an IPv6 literal in brackets, as listen() takes it')
  for (const bad of ['999.1.1.1', '1.2.3', '1.2.3.4.5', '256.0.0.1', '[::g]', '::1::2', 'a b', 'http://x', '-x', 'x..y']) {
    t.throws(() => host(bad), { code: 'ERR_CONFIG', message: `Expected a host name or IP address for TTS_HTTP_HOST but received ${JSON.stringify(bad)} (string)` }, bad)
  }
  t.throws(() => host(`${'a'.repeat(64)}.org`), { code: 'ERR_CONFIG' }, 'a label of 64 characters')
})

t.test('decimal numbers within a range; unset gives the fallback, which may be null', async t => {
  t.equal(numberSetting(pickSetting({ scale: ' 0.75 ' }, 'scale', {}, []), 0.1, 5, 1), 0.75)
  t.equal(numberSetting(undefined, 0.1, 5, null), null)
  t.equal(integerSetting(undefined, 1, 5, null), null)
  for (const raw of ['1e0', '.5', '-1', '5.01', 'NaN']) {
    t.throws(() => numberSetting(pickSetting({ scale: raw }, 'scale', {}, []), 0.1, 5, 1),
      { code: 'ERR_CONFIG', message: `Expected a number from 0.1 to 5 for --scale but received ${JSON.stringify(raw)} (string)` })
  }
})

t.test('flags are parsed strictly; arguments only where the command takes them', async t => {
  const specs = { out: { type: 'string' }, quick: { type: 'boolean' } } as const
  t.same(parseCommandLine(['a', '--out', 'x', 'b'], specs, 'bench compare', true), { values: { out: 'x' }, positionals: ['a', 'b'] })
  t.throws(() => parseFlags(['a'], specs, 'bench'), { code: 'ERR_CONFIG', message: 'Unexpected argument "a" for chorus bench' })
  t.throws(() => parseCommandLine(['a', '--nope'], specs, 'bench compare', true), { message: 'Unknown flag --nope for chorus bench compare' })
  t.throws(() => parseFlags(['--out'], specs, 'bench'), { message: 'Expected a value for --out but received none' })
  t.throws(() => parseFlags(['--quick=1'], specs, 'bench'), { message: 'Unexpected value "1" for --quick, which takes none' })
})
