// `npm test`'s pretest step: rebuild tap's Test class when its plugins are not
// the ones package.json configures (fresh node_modules: tap ships built with
// every default plugin, and Chorus leaves out @tapjs/typescript). tap would
// rebuild on its own at the start of a run, but its runner has by then chosen
// the loaders for that run's test processes from the old build: on a clean
// clone the whole first `npm test` ran every file with ts-node's loader
// beside tsx, about 45% longer (issue 46).

import { spawnSync } from 'node:child_process'
import { TapConfig } from '@tapjs/config'
import { signature } from '@tapjs/test'

const config = await TapConfig.load()
if (config.pluginSignature !== signature) {
  console.log('tap: rebuilding its Test class with the configured plugins')
  const build = spawnSync('npx', ['tap', 'build'], { stdio: 'inherit' })
  if (build.status !== 0) process.exit(build.status ?? 1)
}
