// What the soak and its tool host (host.ts) say to each other over IPC,
// and the timer period both event-loop delay monitors use.
//   host → parent  {kind: 'ready', toolsUrl, spawnerUrl}
//   parent → host  {kind: 'sample'}   host → parent {kind: 'loop', p99Ms, maxMs}

/** The timer period of the delay monitors (prom-client's default too); every recorded delay includes it. */
export const LOOP_RESOLUTION_MS = 10

export type HostMessage =
  | { kind: 'ready', toolsUrl: string, spawnerUrl: string }
  | { kind: 'loop', p99Ms: number, maxMs: number }
