// Whether anything is at a path, even a dangling symbolic link: the voice
// folder's writers (bundled copies, installs) must never replace a file
// they did not put there.

import { lstat } from 'node:fs/promises'

export async function pathExists (path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}
