/**
 * The live pipeline the viewer's browser test runs: `startLive` replaying the embedded default walk
 * onto the default avatar, with ephemeral remote-control and viewer ports.
 */
import * as path from 'node:path';
import { type LiveHandle, startLive } from '../src/live/node/live';

export type ViewerTestLive = LiveHandle & { kind: 'startLive' };

const ROOT = path.resolve(__dirname, '..');
export const DEFAULT_AVATAR = path.join(ROOT, 'assets/default/default-avatar.glb');

export async function startViewerTestLive(): Promise<ViewerTestLive> {
  const h = await startLive({ replay: 'default', avatars: [DEFAULT_AVATAR], remotePort: 0, viewerPort: 0 });
  return Object.assign(h, { kind: 'startLive' as const });
}
