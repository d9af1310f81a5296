// The hostile probes of the service, finding by finding: issue 27's (the
// network as an attacker sees it) and issue 42's (every door checked the
// same way). What was tried (in the issues' words) and the tests that now
// reproduce it and pass. Most findings are reproduced where their fix lives;
// this list points at them rather than copying them, and `npm run
// test:hostile` runs exactly these files plus test/hostile/*.test.ts.
// findings.unit.ts checks that every finding has a test and that each named
// test still exists.

export interface Finding {
  /** The issue that reported it. */
  issue: 27 | 42
  finding: number
  title: string
  /** The probe, as the issue tells it. */
  probe: string
  /** Test files, each with titles (or the start of titles) of its tests that reproduce the finding. */
  tests: Array<{ file: string, titles: string[] }>
  /** Byte and time thresholds of the finding, measured apart (test/leak, each
   * file run alone): named here, never run by `npm run test:hostile`. */
  measured?: Array<{ file: string, titles: string[] }>
}

export const FINDINGS: readonly Finding[] = [
  {
    issue: 27,
    finding: 1,
    title: 'A 5 KB request becomes ~570 MB',
    probe: '{"text": "Go. Go. … (1250×)", "sentence_silence": 10, "voice": "en_US-espeak-low"} made a 568 MB WAV',
    tests: [
      { file: 'test/http/bounded-output.test.ts', titles: ['silence alone past the ceiling', 'speech past the ceiling stops'] },
      { file: 'test/synthesis/answer-spool.test.ts', titles: ['a whole WAV past the in-memory share spills and comes back identical'] }
    ],
    measured: [{ file: 'test/leak/amplified-answers.leak.ts', titles: ['32 amplifying requests with slow readers stay under the documented ceiling'] }]
  },
  {
    issue: 27,
    finding: 2,
    title: 'No backpressure',
    probe: 'a client reading 1 byte/s let synthesis finish with ~11 MB held; the request left chorus_pending_requests and outlived TTS_TIMEOUT_SECONDS',
    tests: [
      { file: 'test/http/backpressure.test.ts', titles: ['a stalled client holds its synthesis and counts as pending; once it reads, every byte arrives', 'the request\'s time ends a stalled response, cut; nothing stays buffered'] },
      { file: 'test/synthesis/answer-spool.test.ts', titles: ['a whole answer whose client stops reading: sent only as it reads, counted as pending, cut at its time'] }
    ]
  },
  {
    issue: 27,
    finding: 3,
    title: 'The tool server reads spawner bodies without a limit',
    probe: 'a 120 MB error body from the spawner aborts chorus tools; a 300 MB 2xx body answers a plain-text 500',
    tests: [{ file: 'test/tools/spawner-body-limit.unit.ts', titles: ['300 MB answers, 2xx and 5xx'] }]
  },
  {
    issue: 27,
    finding: 4,
    title: 'A web page can make the service speak (CSRF)',
    probe: "from a page in headless Chromium, fetch('http://127.0.0.1:PORT/tts', {method: 'POST', mode: 'no-cors', body: new Blob([json])}) was synthesized",
    tests: [{ file: 'test/http/browser-origins.test.ts', titles: ['a foreign origin is refused before any work', 'in Chromium: a foreign page cannot trigger synthesis'] }]
  },
  {
    issue: 27,
    finding: 5,
    title: 'An unloadable voice evicts healthy ones',
    probe: 'a 20 GB sparse .onnx retired the idle default voice before failing; a 1.5 GB garbage file is read whole before the protobuf error',
    tests: [
      { file: 'test/engine/model-header.unit.ts', titles: ['sparse files past the limit, and large garbage, cost only their header'] },
      { file: 'test/pool/broken-voices.test.ts', titles: ['every kind of damaged voice is refused with its reason'] }
    ]
  },
  {
    issue: 27,
    finding: 6,
    title: 'Anyone on the network can use everything',
    probe: 'no keys on the TTS service, its metrics, voices or admin actions',
    tests: [
      {
        file: 'test/http/auth.test.ts',
        titles: ['without a key: the probes and the playground answer, everything else is 401', 'the OpenAI client', 'the playground: asks for a key', 'the WebSocket: refused with 401', 'requests per minute', 'concurrent streams']
      },
      { file: 'test/http/auth-middleware.unit.ts', titles: ['requireAdmin: 403 for a user key'] },
      { file: 'test/hostile/mcp-client-token.unit.ts', titles: ['the MCP SDK client: works with the tool server\'s token, 401 without it'] }
    ]
  },
  {
    issue: 27,
    finding: 7,
    title: 'Smaller',
    probe: 'invalid espeak.voice; num_symbols and sample_rate 2,000,000,000 accepted; config errors show /etc/passwd; JSON-RPC messages echo the token; TTS_HTTP_HOST=999.1.1.1 exits 1; zero-width text answers 200; the port bound after the default voice; hang-ups at warn',
    tests: [
      { file: 'test/voices/espeak-voice-check.test.ts', titles: ['an unknown espeak.voice is broken at the scan'] },
      { file: 'test/engine/voice-config.unit.ts', titles: ['every broken field is named', 'missing, unreadable and malformed files'] },
      { file: 'test/engine/phoneme-table.test.ts', titles: ['a config is compared with the table', 'every voice the project makes fits its model'] },
      { file: 'test/tools/redaction.test.ts', titles: ['JSON-RPC errors never echo the bearer token'] },
      { file: 'test/http/reports.test.ts', titles: ['a client that hangs up during synthesis: info'] },
      { file: 'test/hostile/smaller-findings.test.ts', titles: ['TTS_HTTP_HOST=999.1.1.1', 'text of only zero-width characters', 'num_symbols that does not match the model', 'the port is bound before the default voice has loaded'] }
    ]
  },
  {
    issue: 27,
    finding: 8,
    title: 'The ownership rule covers only start, stop and restart',
    probe: 'acting as one bot, bot_delete removed an unrelated root bot and bot_create made a bot under an unrelated parent',
    tests: [{ file: 'test/tools/ownership.test.ts', titles: ['the default mode keeps the original contract', 'strict mode: delete and create only within the active bot\'s own tree'] }]
  },
  {
    issue: 42,
    finding: 1,
    title: 'Timing answers skip the key\'s quotas',
    probe: 'with audio_seconds_per_minute: 5, four POST /tts of 90 characters gave 200 429 429 429, the same with "timestamps": ["word"] 200 200 200 200: sendTimedJson never admitted the speech and passed no tenant',
    tests: [{ file: 'test/access/admission-table.test.ts', titles: ['the table classifies every route the router holds and every WebSocket path, and nothing else', '${row}: admitted, its audio counted against its key', 'requests per minute, at every door', 'concurrent streams: a held HTTP stream takes the key\'s one place'] }]
  },
  {
    issue: 42,
    finding: 2,
    title: 'A keys file that is not JSON prints the start of a key',
    probe: 'a keys file holding one bare key: exit 2 with `Unexpected token \'k\', "k7Qm2xv9Lr"... is not valid JSON`, and the same excerpt in the reload\'s log line',
    tests: [{ file: 'test/access/keys-file-secrecy.unit.ts', titles: ['not JSON: where it stops, never what it says', 'JSON of the wrong shape: no value that could be a key is quoted', 'at start-up: exit 2 with where, never what', 'on a reload: the log line says where, never what'] }]
  },
  {
    issue: 42,
    finding: 3,
    title: 'A voice download has no overall deadline',
    probe: 'TTS_VOICE_SOURCE at a server sending 1 byte/s: the voice stayed installing over 5 minutes, DELETE answered 409, a second admin POST got no answer in 200 s',
    tests: [{ file: 'test/voices/download-limits.test.ts', titles: ['a source that trickles: stopped at the deadline', 'a source that sends nothing more: stopped at the stall timeout', 'through the admin API: the deadline answers the install, DELETE cancels one'] }]
  },
  {
    issue: 42,
    finding: 4,
    title: 'The WebSocket upgrade accepts what HTTP refuses',
    probe: 'an upgrade with Sec-Fetch-Site: cross-site and no Origin was accepted and spoke',
    tests: [{ file: 'test/access/doors.test.ts', titles: ['the WebSocket upgrade is refused exactly where plain HTTP is'] }]
  },
  {
    issue: 42,
    finding: 5,
    title: 'No allow-list of host names (DNS rebinding)',
    probe: 'a request whose Host and Origin are both a foreign name was served',
    tests: [
      { file: 'test/access/doors.test.ts', titles: ['the WebSocket upgrade is refused exactly where plain HTTP is', 'a refused host name: a message that names it and the setting'] },
      { file: 'test/deploy/allowed-hosts.unit.ts', titles: ['compose: the host', 'Kubernetes: every Service'] }
    ]
  },
  {
    issue: 42,
    finding: 6,
    title: 'OpenAI\'s routes refuse in Chorus\'s error shape',
    probe: '/v1/audio/speech without a key answered 401 as {"error": "…", "code"}, not {"error": {"message", …}}',
    tests: [{ file: 'test/access/doors.test.ts', titles: ['OpenAI\'s paths answer 401, 403, 421 and 429 in OpenAI\'s error shape'] }]
  },
  {
    issue: 42,
    finding: 7,
    title: 'The tool server\'s memory is 5 × what its settings imply',
    probe: '4 sessions × 32-call batches against a spawner answering 120 MB bodies: 303-430 MB peak (idle ~111 MB), against 16 × 4 MiB',
    tests: [{ file: 'test/tools/answer-budget.unit.ts', titles: ['results past the budget are refused', 'a refusal\'s excerpt'] }],
    measured: [{ file: 'test/leak/tool-server-memory.leak.ts', titles: ['4 sessions × 32-call batches'] }]
  },
  {
    issue: 42,
    finding: 8,
    title: 'The voice source\'s redirects are followed to 127.0.0.1',
    probe: 'a redirect from TTS_VOICE_SOURCE to 127.0.0.1 was followed, and the admin saw that server\'s status',
    tests: [{ file: 'test/voices/download-limits.test.ts', titles: ['internal addresses: loopback', 'redirects: to an internal address refused from a public source'] }]
  },
  {
    issue: 42,
    finding: 9,
    title: 'http and websocket import the pool',
    probe: 'Tenant lived in src/pool/tenant.ts, the architecture test had been loosened for it, and docs/architecture.md disagreed with it in three rows',
    tests: [{ file: 'test/architecture/imports.unit.ts', titles: ['the protocol adapters import nothing from the pool or the engine', 'docs/architecture.md\'s table says what the rules say', 'each folder imports only what the architecture table allows'] }]
  }
]

/** Every test file of the suite, once, in finding order. */
export function hostileFiles (): string[] {
  return [...new Set(FINDINGS.flatMap(finding => finding.tests.map(test => test.file)))]
}
