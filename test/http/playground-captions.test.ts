// The playground's captions in a real browser (Debian's Chromium driven by
// playwright-core), on a bench voice (real durations): the text sent is
// shown as a caption, each timed word a span; while the answer plays the lit
// word advances in order to the last; streamed MP3 (Server-Sent Events into
// Media Source Extensions) and whole WAV (JSON) alike. A screenshot taken
// a few words in goes to test/fixtures/generated/ (git-ignored).

import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { loadServiceConfig } from '../../src/service/config.js'
import { startService } from '../../src/service/server.js'
import { createLogger } from '../../src/shared/logger.js'
import { launchChromium, NO_CHROMIUM } from '../helpers/chromium.js'
import { fileCanRun } from '../helpers/test-tools.js'
import { BENCH_VOICES, FIXTURES } from '../helpers/voices.js'

if (!fileCanRun(NO_CHROMIUM)) process.exit(0)

const VOICE = 'en_US-bench-x_low'
const voiceDir = await mkdtemp(join(tmpdir(), 'chorus-captions-'))
for (const ext of ['.onnx', '.onnx.json']) await cp(join(BENCH_VOICES, VOICE + ext), join(voiceDir, VOICE + ext))
const service = await startService(loadServiceConfig({
  TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: '0', TTS_VOICE_DIR: voiceDir, TTS_DEFAULT_VOICE: VOICE,
  TTS_WORKERS_PER_VOICE: '1', TTS_TIMEOUT_SECONDS: '3600', TTS_CACHE_BYTES: '0'
}), createLogger('chorus-tts', 'error'))
const browser = await launchChromium()
t.teardown(async () => {
  await browser.close()
  await service.close()
  await rm(voiceDir, { recursive: true, force: true })
})

const TEXT = 'Hello there! This caption lights up, word by word, while it plays.'
const WORDS = ['Hello', 'there', 'This', 'caption', 'lights', 'up', 'word', 'by', 'word', 'while', 'it', 'plays']
const SCREENSHOT = join(FIXTURES, 'generated', 'playground-captions.png')

for (const format of ['mp3', 'wav']) {
  t.test(`${format}: the lit word advances in order while the answer plays`, async t => {
    const page = await browser.newPage({ viewport: { width: 900, height: 900 } })
    const errors: string[] = []
    page.on('pageerror', error => errors.push(error.message))
    await page.goto(service.url + '/')
    await page.getByLabel('Voice').selectOption(VOICE)
    await page.getByLabel('Format').selectOption(format)
    await page.getByLabel('Text').fill(TEXT)
    await page.getByRole('button', { name: 'Speak' }).click()
    // A few words in (or the end, on a slow machine): the screenshot.
    await page.waitForFunction('(document.body.dataset.highlighted ?? "").split(",").length >= 3 || document.body.dataset.played === "true"', undefined, { timeout: 300_000 })
    if (format === 'mp3') {
      await mkdir(join(FIXTURES, 'generated'), { recursive: true })
      await page.locator('main').screenshot({ path: SCREENSHOT })
    }
    await page.waitForSelector('body[data-played="true"]', { timeout: 300_000 })
    t.equal(await page.locator('body').getAttribute('data-streamed'), format === 'mp3' ? 'true' : 'false', format === 'mp3' ? 'streamed as Server-Sent Events' : 'whole, as JSON')
    t.equal(await page.locator('#captions').textContent(), TEXT, 'the caption is the text sent')
    t.same(await page.locator('#captions .word').allTextContents(), WORDS, 'a span per word as written')
    const lit = (await page.locator('body').getAttribute('data-highlighted') ?? '').split(',').map(Number)
    t.ok(lit.every((index, i) => i === 0 || index > lit[i - 1]), `the lit word only moves forward (${lit.join(',')})`)
    t.equal(lit.at(-1), WORDS.length - 1, 'to the last word')
    t.ok(lit.length >= 3, 'through several words in turn')
    t.equal(await page.locator('#captions .word.current').textContent(), WORDS.at(-1), 'the last word is lit at the end')
    t.same(errors, [], 'no script errors')
    await page.close()
  })
}
