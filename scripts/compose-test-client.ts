// The client half of npm run compose:test (scripts/compose-test.sh): talks
// to a running compose stack as its users would. Steps, by argv[2]:
//   use      speech in WAV and Opus from the TTS service, and bot_create,
//            bot_list, bot_delete through the tool server's MCP endpoint
//            with the official MCP SDK client
//   voices   prints the TTS service's installed voices (one per line), to
//            compare before and after a restart
// Settings come from flags: --tts URL --tools URL --tools-token TOKEN.

import { parseArgs } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { tts: { type: 'string' }, tools: { type: 'string' }, 'tools-token': { type: 'string' } }
})
const step = positionals[0]
const tts = values.tts ?? 'http://127.0.0.1:8995'

function check (condition: boolean, what: string): void {
  if (!condition) throw new Error(`compose-test: ${what}`)
  console.error(`compose-test: ok ${what}`)
}

async function speak (format: 'wav' | 'opus'): Promise<Buffer> {
  const response = await fetch(`${tts}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'tts-1', input: 'Hello from the compose stack.', voice: 'en_US-probe-medium', response_format: format }),
    signal: AbortSignal.timeout(120_000)
  })
  const body = Buffer.from(await response.arrayBuffer())
  if (response.status !== 200) throw new Error(`compose-test: ${format} speech answered ${response.status}: ${body.toString()}`)
  return body
}

async function use (): Promise<void> {
  const wav = await speak('wav')
  check(wav.subarray(0, 4).toString() === 'RIFF' && wav.subarray(8, 12).toString() === 'WAVE' && wav.length > 44, `WAV speech (${wav.length} bytes)`)
  const opus = await speak('opus')
  check(opus.subarray(0, 4).toString() === 'OggS' && opus.includes(Buffer.from('OpusHead')), `Opus speech in Ogg (${opus.length} bytes)`)

  const token = values['tools-token']
  const client = new Client({ name: 'chorus-compose-test', version: '0.0.0' })
  const headers: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${values.tools ?? 'http://127.0.0.1:8999'}/mcp`), { requestInit: { headers } }))
  try {
    const bot = { first: 'Compose', last: 'Builder' }
    const created = await client.callTool({ name: 'bot_create', arguments: { ...bot, level: 'BUILDER' } })
    // Only the outcome: the answer holds the new bot's password.
    if (created.isError === true) throw new Error(`compose-test: bot_create failed: ${JSON.stringify(created.content)}`)
    check(true, 'bot_create through MCP')
    const listed = await client.callTool({ name: 'bot_list', arguments: {} })
    check(JSON.stringify(listed.structuredContent ?? listed.content).includes('Compose'), 'bot_list shows the new bot')
    const deleted = await client.callTool({ name: 'bot_delete', arguments: bot })
    check(deleted.isError !== true, 'bot_delete through MCP')
    const after = await client.callTool({ name: 'bot_list', arguments: {} })
    check(!JSON.stringify(after.structuredContent ?? after.content).includes('Compose'), 'bot_list no longer shows it')
  } finally {
    await client.close()
  }
}

async function voices (): Promise<void> {
  const response = await fetch(`${tts}/voices`, { signal: AbortSignal.timeout(30_000) })
  const body = await response.json() as { voices: string[] }
  console.log(body.voices.join('\n'))
}

if (step === 'use') await use()
else if (step === 'voices') await voices()
else throw new Error(`compose-test-client: expected use or voices but received ${String(step)}`)
