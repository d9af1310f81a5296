// The architecture's folder rules, in one place: which folders of src/ (and
// the harness, bench/) each folder may import besides src's root files
// (errors.ts, error-registry.ts, validate.ts, package-root.ts), which every
// folder may use. imports.unit.ts checks the import statements against it,
// and checks that docs/architecture.md's table says the same.

export const ALLOWED_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  engine: [],
  shared: [],
  text: [],
  voices: ['engine'],
  pool: ['engine', 'voices'],
  audio: ['engine'],
  synthesis: ['engine', 'voices', 'pool', 'audio', 'shared', 'text'],
  // The lexicon store: versions on disk, scopes, which lexicons a request applies.
  lexicons: ['synthesis', 'text', 'shared'],
  // Admission names the tenant and hands each speech its share: through synthesis, never the pool.
  access: ['synthesis', 'shared'],
  // The protocol adapters reach the pool and the engine only through synthesis and access.
  openai: ['synthesis', 'audio', 'voices', 'shared'],
  http: ['access', 'synthesis', 'openai', 'elevenlabs', 'voices', 'audio', 'shared', 'lexicons', 'text'],
  websocket: ['access', 'synthesis', 'openai', 'audio', 'shared'],
  // Each further protocol is a thin adapter over the WebSocket's stream context or HTTP's speech response.
  cartesia: ['websocket', 'synthesis'],
  deepgram: ['websocket', 'synthesis'],
  elevenlabs: ['websocket', 'synthesis', 'openai'],
  service: ['access', 'http', 'websocket', 'cartesia', 'deepgram', 'synthesis', 'openai', 'pool', 'voices', 'audio', 'engine', 'shared', 'lexicons'],
  tools: ['shared'],
  spawner: ['shared'],
  commands: ['service', 'synthesis', 'voices', 'audio', 'engine', 'shared'],
  // The conversation benchmarks pick the scheduler (pool's SCHEDULER_MODES).
  bench: ['service', 'tools', 'spawner', 'pool', 'voices', 'engine', 'shared']
}

/** Folders that speak a protocol: they never import the pool or the engine. */
export const PROTOCOL_ADAPTERS: readonly string[] = ['http', 'websocket', 'openai', 'cartesia', 'deepgram', 'elevenlabs']

/** Files of synthesis that the protocol adapters never import: they ask the
 * speech service (speech-service.ts), which keeps the synthesizer private. */
export const SYNTHESIS_INTERNALS: readonly string[] = ['synthesis/synthesizer.ts']

/** Protocols that are only a translation: each folder's code (lines that
 * are neither blank nor comments) stays within this many lines. */
export const THIN_ADAPTERS: readonly string[] = ['cartesia', 'deepgram', 'elevenlabs']
export const THIN_ADAPTER_LINES = 200

/** Folders that never import each other. */
export const APART: ReadonlyArray<readonly [string, string]> = [['tools', 'spawner']]
