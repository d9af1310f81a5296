// The tool server binds all interfaces by default, since agents may run in
// another container. Without a token, anyone who can reach the port can then
// manage bots, so start-up says so.

import type { ToolsHttpConfig } from './config.js'

/** The warning owed at start-up, or undefined when the server is not exposed. */
export function exposureWarning (http: Pick<ToolsHttpConfig, 'host' | 'token'>): string | undefined {
  if (http.token !== undefined || isLoopback(http.host)) return undefined
  return `listening on ${http.host}, beyond loopback, without CHORUS_TOOLS_TOKEN: anyone who can reach the port can manage bots; ` +
    'set CHORUS_TOOLS_TOKEN, or --host 127.0.0.1 when agents run on this machine'
}

/** Hosts only this machine can reach. */
export function isLoopback (host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return bare === 'localhost' || bare === '::1' || /^(?:::ffff:)?127\.\d+\.\d+\.\d+$/.test(bare)
}
