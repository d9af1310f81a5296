// The start-up warning for a tool server reachable beyond loopback without a
// token. The servers in tests only bind 127.0.0.1, so the decision is tested
// here and its absence on loopback in cli.test.ts.

import t from 'tap'
import { exposureWarning, isLoopback } from '../../src/tools/exposure.js'

t.test('loopback hosts', async (t) => {
  for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1']) t.ok(isLoopback(host), host)
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'tools.internal', '127.0.0.1.example', '::ffff:10.0.0.1']) t.notOk(isLoopback(host), host)
})

t.test('a warning only when exposed without a token', async (t) => {
  t.equal(exposureWarning({ host: '0.0.0.0', token: undefined }),
    'listening on 0.0.0.0, beyond loopback, without CHORUS_TOOLS_TOKEN: anyone who can reach the port can manage bots; ' +
    'set CHORUS_TOOLS_TOKEN, or --host 127.0.0.1 when agents run on this machine')
  t.match(exposureWarning({ host: '::', token: undefined }), /^listening on ::, beyond loopback/)
  t.equal(exposureWarning({ host: '0.0.0.0', token: 'secret' }), undefined)
  t.equal(exposureWarning({ host: '127.0.0.1', token: undefined }), undefined)
})
