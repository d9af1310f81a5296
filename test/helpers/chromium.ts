// Debian's Chromium, driven by playwright-core, for the playground's browser
// tests: found on PATH (test-tools.ts), headless, with nothing that reaches
// outside this machine.

import type { Browser } from 'playwright-core'
import { programPath, whyUnavailable } from './test-tools.js'

/** Why the browser tests cannot run here, or false. */
export const NO_CHROMIUM = whyUnavailable(['chromium'])

export async function launchChromium (): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  return await chromium.launch({
    executablePath: programPath('chromium'),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--autoplay-policy=no-user-gesture-required']
  })
}
