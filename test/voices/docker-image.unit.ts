// No Docker engine runs the tests, so the Dockerfile is checked for what can
// go stale without one: the files it needs are in the build context, the
// bundled voices exist, and paths and ports agree with the code.

import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { loadCatalog } from '../../src/voices/catalog.js'

const dockerfile = await readFile(join(PACKAGE_ROOT, 'Dockerfile'), 'utf8')
const ignored = (await readFile(join(PACKAGE_ROOT, '.dockerignore'), 'utf8'))
  .split('\n').map(line => line.trim()).filter(line => line !== '' && !line.startsWith('#'))

// Enough of .dockerignore's matching for the patterns it holds: a path
// prefix, or `*.ext`.
function isIgnored (path: string): boolean {
  return ignored.some(pattern => pattern.startsWith('*.')
    ? path.endsWith(pattern.slice(1))
    : path === pattern || path.startsWith(`${pattern}/`))
}

t.test('what the build reads is in the build context', async t => {
  const needed = ['package.json', 'package-lock.json', 'tsconfig.json', 'CMakeLists.txt', 'LICENSE',
    'scripts/fetch-native-deps.sh', 'scripts/build-espeak.sh', 'scripts/fetch-voices.ts', 'scripts/docker-entrypoint.sh',
    'native', 'src/cli.ts', 'src/voices/fetch.ts', 'voices/catalog.json']
  for (const path of needed) {
    t.ok(existsSync(join(PACKAGE_ROOT, path)), `${path} exists`)
    t.notOk(isIgnored(path), `${path} is not ignored`)
  }
  for (const path of ['node_modules', 'build/Release', 'dist/src', 'native/third_party/espeak-ng-data', 'voices/local/x.onnx', 'test/fixtures/generated']) {
    t.ok(isIgnored(path), `${path} is ignored`)
  }
})

t.test('the bundled voices are catalogue voices', async t => {
  const match = /^ARG BUNDLED_VOICES="([^"]+)"$/m.exec(dockerfile)
  t.ok(match, 'BUNDLED_VOICES is declared')
  const names = (match?.[1] ?? '').split(' ')
  t.same(names, ['en_US-lessac-medium', 'en_US-ryan-medium'])
  const catalog = await loadCatalog()
  for (const name of names) t.ok(catalog.has(name), name)
})

t.test('stages, entrypoint, port and volume agree with the code', async t => {
  t.match(dockerfile, /^FROM node:\$\{NODE_MAJOR\}-bookworm AS build$/m)
  t.match(dockerfile, /^FROM node:\$\{NODE_MAJOR\}-bookworm-slim AS runtime$/m)
  t.match(dockerfile, /^ARG NODE_MAJOR=20$/m)
  t.match(dockerfile, /^COPY --from=build --chmod=0755 \/app\/scripts\/docker-entrypoint\.sh \.\/scripts\/docker-entrypoint\.sh$/m)
  t.match(dockerfile, /^WORKDIR \/app$/m)
  t.match(dockerfile, /^ENTRYPOINT \["\/app\/scripts\/docker-entrypoint\.sh"\]$/m)
  t.match(dockerfile, /^EXPOSE 8995$/m)
  t.match(dockerfile, /^VOLUME \/voices$/m)
  t.match(dockerfile, /TTS_VOICE_DIR=\/voices/)
  t.match(dockerfile, /CHORUS_BUNDLED_VOICE_DIR=\/app\/voices\/bundled/)
  t.match(dockerfile, /^USER 10001:10001$/m)
  t.match(dockerfile, /^HEALTHCHECK .*\n\s+CMD \["node", "-e", ".*\/health.*"\]$/m)
  t.match(dockerfile, /node dist\/scripts\/fetch-voices\.js --dest /)
  t.match(dockerfile, /^COPY --from=build --chmod=0755 \/app\/scripts\/tools-entrypoint\.sh \.\/scripts\/tools-entrypoint\.sh$/m)
})

t.test('offline and custom-voice builds reach fetch-voices', async t => {
  t.match(dockerfile, /^ARG VOICES_MIRROR=""$/m)
  t.match(dockerfile, /^ARG VOICES_CATALOG=""$/m)
  t.match(dockerfile, /\$\{VOICES_MIRROR:\+--mirror "\$VOICES_MIRROR"\} \$\{VOICES_CATALOG:\+--catalog "\$VOICES_CATALOG"\} \$BUNDLED_VOICES/)
  // Both flags exist in the script the build runs.
  const script = await readFile(join(PACKAGE_ROOT, 'scripts/fetch-voices.ts'), 'utf8')
  t.match(script, /mirror: \{ type: 'string' \}/)
  t.match(script, /catalog: \{ type: 'string' \}/)
})

t.test('the build skips onnxruntime-node\'s GPU download and the runtime has ONNX Runtime\'s telemetry off', async t => {
  t.match(dockerfile, /env ONNXRUNTIME_NODE_INSTALL=skip .*\n\s+npm ci/)
  t.match(dockerfile, /ORT_DISABLE_TELEMETRY=1/)
  t.ok(ignored.includes('deploy'), 'env files with secrets stay out of the build context')
})
