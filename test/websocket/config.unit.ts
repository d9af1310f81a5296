// The WebSocket's settings: defaults derived from the service's own bounds,
// and a bad value refused naming its variable.

import t from 'tap'
import { loadServiceConfig } from '../../src/service/config.js'

const load = (env: Record<string, string>) => loadServiceConfig({ TTS_VOICE_MEMORY_BYTES: '1000000', ...env })

t.test('defaults: 5 contexts a socket, a socket\'s text one request\'s, the totals from TTS_MAX_PENDING', async t => {
  t.same(load({ TTS_MAX_PENDING: '10', TTS_MAX_TEXT_LENGTH: '1000' }).websocket, {
    maxContexts: 5, maxContextsTotal: 40, maxText: 1000, maxTextTotal: 40_000, textWaitMs: 1000, maxMessageBytes: 65536
  })
})

t.test('a bad value names its variable; a socket\'s text may not pass TTS_MAX_TEXT_LENGTH', async t => {
  t.throws(() => load({ TTS_WS_MAX_CONTEXTS: '0' }), { code: 'ERR_CONFIG', message: 'Expected an integer from 1 to 1000 for TTS_WS_MAX_CONTEXTS but received "0" (string)' })
  t.throws(() => load({ TTS_MAX_TEXT_LENGTH: '100', TTS_WS_MAX_TEXT: '101' }), { code: 'ERR_CONFIG', message: /for TTS_WS_MAX_TEXT but received "101"/ })
  t.throws(() => load({ TTS_WS_TEXT_WAIT_MS: '5' }), { code: 'ERR_CONFIG', message: /from 10 to 60000 for TTS_WS_TEXT_WAIT_MS/ })
})
