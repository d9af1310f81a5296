// Issue 27's "done when" for the tool server: the official MCP SDK client
// works with the tool server's token (CHORUS_TOOLS_TOKEN) and gets 401
// without it, or with a wrong one, before any tool runs.

import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t from 'tap'
import { callTool, connectHttp, startReferenceSpawner, startTools } from '../tools/helpers.js'

const TOKEN = 'k7Qm2xv9LrT4pW8sYb3n'

t.test('the MCP SDK client: works with the tool server\'s token, 401 without it or with another', async t => {
  const spawner = await startReferenceSpawner(t)
  const tools = await startTools(t, { spawnerPort: spawner.port, token: TOKEN, identity: { first: 'Root', last: 'Governor' } })

  const client = await connectHttp(t, tools.mcpUrl, { Authorization: `Bearer ${TOKEN}` })
  t.ok((await client.listTools()).tools.some(tool => tool.name === 'bot_list'), 'the tools are listed')
  const listed = await callTool(client, 'bot_list')
  t.equal(listed.isError, false, 'and a tool runs')

  const strangers: Array<Record<string, string>> = [{}, { Authorization: 'Bearer not-the-token-at-all' }, { Authorization: TOKEN }]
  for (const headers of strangers) {
    const stranger = new Client({ name: 'chorus-tests', version: '0.0.0' })
    await t.rejects(stranger.connect(new StreamableHTTPClientTransport(new URL(tools.mcpUrl), { requestInit: { headers } })),
      { code: 401 }, JSON.stringify(headers))
    await stranger.close()
  }
})
