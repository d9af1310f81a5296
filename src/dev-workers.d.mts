// Types of dev-workers.mjs (plain JavaScript: it runs before tsx is registered).

export const SOURCE_ROOT: string
export const BUNDLE_DIR: string
export function manifestPath (entryPath: string): string
export function sourcesHash (files: string[], read?: (file: string) => Uint8Array): string
export function freshBundle (entryPath: string): string | undefined
export function importWorker (entryUrl: URL | string): Promise<Record<string, unknown>>
