/**
 * Locating optional system tools the browser tests need (Debian's ffmpeg).
 */
import { execFileSync } from 'node:child_process';

/** The absolute path of `name` on PATH (`command -v`), or null when it is not installed. */
export function findTool(name: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}
