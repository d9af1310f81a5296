// Configuration of `chorus tools` and `chorus spawner`: defaults, variables,
// flags over variables, and errors that name what is wrong (exit code 2).

import { Writable } from 'node:stream'
import t from 'tap'
import { parseSpawnerConfig } from '../../src/spawner/config.js'
import { runSpawnerCommand } from '../../src/spawner/cli.js'
import { parseToolsConfig } from '../../src/tools/config.js'
import { runToolsCommand } from '../../src/tools/cli.js'

function capture (): { stream: Writable, text: () => string } {
  let text = ''
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8')
      done()
    }
  })
  return { stream, text: () => text }
}

t.test('tools: defaults', async (t) => {
  t.same(parseToolsConfig([], {}), {
    transport: 'http',
    http: { host: '0.0.0.0', port: 8999, path: '/mcp', token: undefined, allowedOrigins: [], maxSessions: 1000, sessionsPerMinute: 60 },
    spawner: { host: 'opensim-ai-spawner', port: 8993, token: undefined, timeoutMs: 10000, retries: 2, maxBodyBytes: 4 * 1024 * 1024 },
    limits: { maxBatch: 32, callsPerSession: 4, spawnerCalls: 16, maxAnswerBytes: 16 * 1024 * 1024 },
    identity: undefined,
    ownership: 'actions',
    logLevel: 'info',
    help: false
  })
})

t.test('tools: environment', async (t) => {
  const config = parseToolsConfig([], {
    SPAWNER_HOST: 'spawner.internal',
    SPAWNER_PORT: '9001',
    SPAWNER_TOKEN: '  padded-token \n',
    SPAWNER_TIMEOUT_MS: '2500',
    SPAWNER_RETRIES: '0',
    OPENSIM_BOT_FIRST: 'Ada',
    OPENSIM_BOT_LAST: ' Lovelace ',
    CHORUS_TOOLS_HOST: '127.0.0.1',
    CHORUS_TOOLS_PORT: '0',
    CHORUS_TOOLS_PATH: '/rpc',
    CHORUS_TOOLS_TOKEN: 'tools-token',
    CHORUS_TOOLS_ALLOWED_ORIGINS: 'http://localhost:6274, https://app.example.org',
    CHORUS_LOG_LEVEL: 'debug',
    CHORUS_TOOLS_MAX_SESSIONS: '50',
    CHORUS_TOOLS_SESSIONS_PER_MINUTE: '10',
    CHORUS_TOOLS_MAX_BATCH: '8',
    CHORUS_TOOLS_CALLS_PER_SESSION: '2',
    CHORUS_TOOLS_SPAWNER_CALLS: '6',
    CHORUS_TOOLS_MAX_ANSWER_BYTES: '1048576',
    CHORUS_TOOLS_OWNERSHIP: 'strict'
  })
  t.same(config.spawner, { host: 'spawner.internal', port: 9001, token: 'padded-token', timeoutMs: 2500, retries: 0, maxBodyBytes: 4 * 1024 * 1024 })
  t.same(config.http, {
    host: '127.0.0.1',
    port: 0,
    path: '/rpc',
    token: 'tools-token',
    allowedOrigins: ['http://localhost:6274', 'https://app.example.org'],
    maxSessions: 50,
    sessionsPerMinute: 10
  })
  t.same(config.limits, { maxBatch: 8, callsPerSession: 2, spawnerCalls: 6, maxAnswerBytes: 1048576 })
  t.equal(config.ownership, 'strict')
  t.equal(parseToolsConfig([], {}).ownership, 'actions', 'the original contract by default')
  t.same(config.identity, { first: 'Ada', last: 'Lovelace' })
  t.equal(config.logLevel, 'debug')

  t.same(parseToolsConfig([], { BOT_FIRSTNAME: 'Old', BOT_LASTNAME: 'Style' }).identity, { first: 'Old', last: 'Style' })
  t.same(parseToolsConfig([], { BOT_FIRSTNAME: 'Old', BOT_LASTNAME: 'Style', OPENSIM_BOT_FIRST: 'New', OPENSIM_BOT_LAST: 'Name' }).identity,
    { first: 'New', last: 'Name' }, 'OPENSIM_BOT_* come first')
  t.equal(parseToolsConfig([], { SPAWNER_TOKEN: '   ' }).spawner.token, undefined, 'a blank token is no token')
  t.equal(parseToolsConfig([], { SPAWNER_PORT: '' }).spawner.port, 8993, 'an empty variable is unset')
  t.same(parseToolsConfig([], { SPAWNER_HOST: '::1' }).spawner.host, '::1')
})

t.test('tools: flags override the environment', async (t) => {
  const config = parseToolsConfig([
    '--stdio', '--spawner-host', 'flag-host', '--spawner-port=7000', '--spawner-token', ' flag-token ',
    '--first-name', 'Flag', '--last-name', 'Bot', '--port', '1234', '--host', '::', '--path', '/x',
    '--spawner-timeout-ms', '100', '--spawner-retries', '5', '--spawner-max-body-bytes', '65536', '--log-level', 'warn',
    '--max-sessions', '7', '--sessions-per-minute', '9', '--max-batch', '3', '--calls-per-session', '1', '--spawner-calls', '2', '--max-answer-bytes', '65536'
  ], { SPAWNER_HOST: 'env-host', SPAWNER_PORT: '9001', SPAWNER_TOKEN: 'env-token', OPENSIM_BOT_FIRST: 'Env', OPENSIM_BOT_LAST: 'Bot' })
  t.equal(config.transport, 'stdio')
  t.same(config.spawner, { host: 'flag-host', port: 7000, token: 'flag-token', timeoutMs: 100, retries: 5, maxBodyBytes: 65536 })
  t.same(config.identity, { first: 'Flag', last: 'Bot' })
  t.match(config.http, { host: '::', port: 1234, path: '/x', maxSessions: 7, sessionsPerMinute: 9 })
  t.same(config.limits, { maxBatch: 3, callsPerSession: 1, spawnerCalls: 2, maxAnswerBytes: 65536 })
  t.equal(config.logLevel, 'warn')
  t.equal(parseToolsConfig(['--spawner-port', '1', '--spawner-port', '2'], {}).spawner.port, 2, 'the last occurrence wins')
})

t.test('tools: errors name the flag or variable', async (t) => {
  const cases: Array<[string[], Record<string, string>, string]> = [
    [[], { SPAWNER_PORT: 'abc' }, 'Expected an integer from 1 to 65535 for SPAWNER_PORT but received "abc" (string)'],
    [[], { SPAWNER_PORT: '8e3' }, 'Expected an integer from 1 to 65535 for SPAWNER_PORT but received "8e3" (string)'],
    [['--spawner-port', '0'], {}, 'Expected an integer from 1 to 65535 for --spawner-port but received "0" (string)'],
    [['--spawner-port', '70000'], { SPAWNER_PORT: '1' }, 'Expected an integer from 1 to 65535 for --spawner-port but received "70000" (string)'],
    [[], { CHORUS_TOOLS_PORT: '-1' }, 'Expected an integer from 0 to 65535 for CHORUS_TOOLS_PORT but received "-1" (string)'],
    [['--port', '99999'], {}, 'Expected an integer from 0 to 65535 for --port but received "99999" (string)'],
    [['--bogus'], {}, 'Unknown flag --bogus for chorus tools'],
    [['-x'], {}, 'Unknown flag -x for chorus tools'],
    [['--spawner-port'], {}, 'Expected a value for --spawner-port but received none'],
    [['--spawner-host', '--stdio'], {}, 'Expected a value for --spawner-host but received the flag --stdio'],
    [['--stdio=yes'], {}, 'Unexpected value "yes" for --stdio, which takes none'],
    [['serve'], {}, 'Unexpected argument "serve" for chorus tools'],
    [[], { SPAWNER_HOST: 'http://spawner' }, 'Expected a host name or IP address for SPAWNER_HOST but received "http://spawner" (string)'],
    [['--spawner-host', 'a b'], {}, 'Expected a host name or IP address for --spawner-host but received "a b" (string)'],
    [[], { SPAWNER_TIMEOUT_MS: '0' }, 'Expected an integer from 1 to 600000 for SPAWNER_TIMEOUT_MS but received "0" (string)'],
    [[], { SPAWNER_RETRIES: '11' }, 'Expected an integer from 0 to 10 for SPAWNER_RETRIES but received "11" (string)'],
    [[], { SPAWNER_MAX_BODY_BYTES: '10' }, 'Expected an integer from 1024 to 1073741824 for SPAWNER_MAX_BODY_BYTES but received "10" (string)'],
    [['--ownership', 'loose'], {}, 'Expected one of actions, strict for --ownership but received "loose" (string)'],
    [[], { OPENSIM_BOT_FIRST: 'Ada' }, 'Expected the bot last name (it is needed with the first name) for --last-name, OPENSIM_BOT_LAST or BOT_LASTNAME but received undefined (undefined)'],
    [['--last-name', 'Lovelace'], {}, 'Expected the bot first name (it is needed with the last name) for --first-name, OPENSIM_BOT_FIRST or BOT_FIRSTNAME but received undefined (undefined)'],
    [[], { OPENSIM_BOT_FIRST: 'a/b', OPENSIM_BOT_LAST: 'c' }, 'Expected a name without "/" or "\\" for OPENSIM_BOT_FIRST but received "a/b" (string)'],
    [['--first-name', 'Two Words', '--last-name', 'c'], {}, 'Expected a name without whitespace for --first-name but received "Two Words" (string)'],
    [[], { CHORUS_TOOLS_PATH: 'mcp' }, 'Expected a URL path starting with "/" (not /healthz or /metrics) for CHORUS_TOOLS_PATH but received "mcp" (string)'],
    [['--path', '/healthz'], {}, 'Expected a URL path starting with "/" (not /healthz or /metrics) for --path but received "/healthz" (string)'],
    [[], { CHORUS_TOOLS_ALLOWED_ORIGINS: 'http://ok.example, not an origin' }, 'Expected a comma-separated list of origins like http://localhost:3000 for CHORUS_TOOLS_ALLOWED_ORIGINS but received "not an origin" (string)'],
    [[], { CHORUS_TOOLS_MAX_SESSIONS: '0' }, 'Expected an integer from 1 to 1000000 for CHORUS_TOOLS_MAX_SESSIONS but received "0" (string)'],
    [['--sessions-per-minute', 'many'], {}, 'Expected an integer from 1 to 1000000 for --sessions-per-minute but received "many" (string)'],
    [[], { CHORUS_TOOLS_MAX_BATCH: '10001' }, 'Expected an integer from 1 to 10000 for CHORUS_TOOLS_MAX_BATCH but received "10001" (string)'],
    [['--calls-per-session', '0'], {}, 'Expected an integer from 1 to 1000 for --calls-per-session but received "0" (string)'],
    [[], { CHORUS_TOOLS_SPAWNER_CALLS: '1.5' }, 'Expected an integer from 1 to 10000 for CHORUS_TOOLS_SPAWNER_CALLS but received "1.5" (string)'],
    [[], { CHORUS_LOG_LEVEL: 'loud' }, 'Expected one of fatal, error, warn, info, debug, trace, silent for CHORUS_LOG_LEVEL but received "loud" (string)']
  ]
  for (const [argv, env, message] of cases) {
    t.throws(() => parseToolsConfig(argv, env), { name: 'ConfigError', code: 'ERR_CONFIG', message }, `${argv.join(' ')} ${JSON.stringify(env)}`)
  }
})

t.test('tools: a malformed token is refused without being echoed', async (t) => {
  t.throws(() => parseToolsConfig([], { SPAWNER_TOKEN: 'has space inside' }), {
    message: 'Expected printable ASCII without spaces for SPAWNER_TOKEN but received a value that is not'
  })
  t.throws(() => parseToolsConfig([], { CHORUS_TOOLS_TOKEN: 'tab\tinside' }), { message: /for CHORUS_TOOLS_TOKEN but received a value that is not$/ })
})

t.test('runToolsCommand: exit code 2 and the message on stderr', async (t) => {
  for (const [argv, env, pattern] of [
    [['--bogus'], {}, /^chorus tools: Unknown flag --bogus for chorus tools\n$/],
    [[], { SPAWNER_PORT: 'x' }, /^chorus tools: Expected an integer from 1 to 65535 for SPAWNER_PORT but received "x" \(string\)\n$/],
    [['--spawner-port', '0'], {}, /for --spawner-port/]
  ] as Array<[string[], Record<string, string>, RegExp]>) {
    const stderr = capture()
    const stdout = capture()
    t.equal(await runToolsCommand(argv, { env, stderr: stderr.stream, stdout: stdout.stream }), 2)
    t.match(stderr.text(), pattern)
    t.equal(stdout.text(), '', 'nothing on stdout, which may belong to JSON-RPC')
  }
  const help = capture()
  t.equal(await runToolsCommand(['--help'], { env: {}, stdout: help.stream }), 0)
  t.match(help.text(), /Usage: chorus tools \[--stdio\]/)
  t.match(help.text(), /SPAWNER_TOKEN/)
})

t.test('spawner: defaults, environment, flags', async (t) => {
  t.same(parseSpawnerConfig([], {}), { host: '127.0.0.1', port: 8993, token: undefined, stateFile: undefined, maxBots: 100, logLevel: 'info', help: false })
  t.same(parseSpawnerConfig([], { CHORUS_SPAWNER_HOST: '0.0.0.0', CHORUS_SPAWNER_PORT: '9000', SPAWNER_TOKEN: 'shared', CHORUS_SPAWNER_STATE_FILE: '/tmp/s.json', CHORUS_SPAWNER_MAX_BOTS: '5' }),
    { host: '0.0.0.0', port: 9000, token: 'shared', stateFile: '/tmp/s.json', maxBots: 5, logLevel: 'info', help: false })
  t.match(parseSpawnerConfig(['--host', '::1', '--port', '0', '--token', 'flag', '--state-file', 'x.json', '--max-bots', '7'], { CHORUS_SPAWNER_TOKEN: 'env', SPAWNER_TOKEN: 'shared' }),
    { host: '::1', port: 0, token: 'flag', stateFile: 'x.json', maxBots: 7 })
  t.equal(parseSpawnerConfig([], { CHORUS_SPAWNER_TOKEN: 'own', SPAWNER_TOKEN: 'shared' }).token, 'own')
})

t.test('runSpawnerCommand: exit code 2 naming the flag', async (t) => {
  for (const [argv, pattern] of [
    [['--max-bots', '0'], /Expected an integer from 1 to 1000000 for --max-bots but received "0"/],
    [['--port', 'http'], /for --port but received "http"/],
    [['--spawner-port', '1'], /Unknown flag --spawner-port for chorus spawner/],
    [['--state-file', '/dev/null'], /cannot use --state-file \/dev\/null/]
  ] as Array<[string[], RegExp]>) {
    const stderr = capture()
    t.equal(await runSpawnerCommand(argv, { env: {}, stderr: stderr.stream }), 2, argv.join(' '))
    t.match(stderr.text(), pattern)
  }
})
