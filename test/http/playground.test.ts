// The playground in a real browser: Debian's Chromium driven by
// playwright-core. The voice list comes from the service, Speak is reached by
// keyboard, the audio plays to its end, and the download is a valid file.

import { readFile } from 'node:fs/promises'
import t from 'tap'
import { decodeFlac, mp3Frames } from '../helpers/audio-decode.js'
import { launchChromium, NO_CHROMIUM } from '../helpers/chromium.js'
import { startTestService } from '../helpers/service.js'
import { fileCanRun } from '../helpers/test-tools.js'

if (!fileCanRun(NO_CHROMIUM)) process.exit(0)

const service = await startTestService()
const browser = await launchChromium()
t.teardown(async () => {
  await browser.close()
  await service.stop()
})

t.test('type, pick a voice, Speak by keyboard, hear it to the end, download it', async t => {
  const page = await browser.newPage({ acceptDownloads: true })
  const errors: string[] = []
  page.on('pageerror', error => errors.push(error.message))
  await page.goto(service.url + '/')
  await page.getByLabel('Voice').selectOption('en_US-espeak-low')
  t.equal(await page.getByLabel('Speaker').isDisabled(), true, 'one speaker: no choice')
  await page.getByLabel('Voice').selectOption('en_GB-probemulti-medium')
  t.equal(await page.getByLabel('Speaker').locator('option').count(), 109, 'speakers from /voices')
  await page.getByLabel('Voice').selectOption('en_US-espeak-low')
  await page.getByLabel('Text').fill('Hello from the playground. This is a test.')
  await page.getByLabel('Speed').focus()
  await page.keyboard.press('ArrowRight')
  t.equal(await page.locator('#speed-value').textContent(), '1.05', 'sliders work from the keyboard')

  for (const [format, check] of [
    ['mp3', (bytes: Buffer) => t.ok(mp3Frames(bytes).duration > 1, 'the download is a whole MP3')],
    ['flac', async (bytes: Buffer) => t.ok((await decodeFlac(bytes)).pcm.length > 22050, 'the download is a FLAC that decodes')]
  ] as const) {
    await page.getByLabel('Format').selectOption(format)
    await page.getByRole('button', { name: 'Speak' }).focus()
    await page.keyboard.press('Enter')
    await page.waitForSelector('body[data-played="true"]', { timeout: 30_000 })
    t.match(await page.locator('#status').textContent(), 'Done.')
    const played = await page.locator('#player').evaluate((audio: { played: { length: number }, duration: number }) => ({ played: audio.played.length, duration: audio.duration }))
    t.ok(played.played > 0 && played.duration > 1, `${format} audio played (${played.duration} s)`)
    const streamed = await page.locator('body').getAttribute('data-streamed')
    t.equal(streamed, format === 'mp3' ? 'true' : 'false', format === 'mp3' ? 'MP3 played while streaming (Media Source Extensions)' : 'played once complete')
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download' }).click()])
    t.equal(download.suggestedFilename(), `chorus.${format}`)
    await check(await readFile(await download.path()))
  }
  t.same(errors, [], 'no script errors')
})

t.test('a bad request shows the service\'s error message', async t => {
  const page = await browser.newPage()
  await page.goto(service.url + '/')
  await page.getByLabel('Text').fill('   ')
  await page.getByRole('button', { name: 'Speak' }).click()
  await page.waitForFunction('document.getElementById("status").textContent.startsWith("Error")')
  t.match(await page.locator('#status').textContent(), 'Error 400: Missing required field: text')
})
