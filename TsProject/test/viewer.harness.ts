/**
 * A live pipeline for the viewer's browser test: the lead's `startLive` (src/live/node/live.ts) when it
 * exists, else a local stand-in with the same shape: the embedded default walk replayed by a timer into
 * a real RetargetHub per avatar, the real remote-control server (src/live/node/remoteServer.ts) and the
 * viewer server.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadAvatar, loadSource } from '../src/cli/load';
import { readFrame } from '../src/core';
import { startRemoteServer } from '../src/live/node/remoteServer';
import { startViewerServer, viewerSkeleton } from '../src/live/node/viewerServer';
import { type LiveCharacters, RemoteControl } from '../src/live/remote';
import { RetargetHub } from '../src/rig';

/** The part of the lead's LiveHandle the test uses. */
export interface ViewerTestLive {
  viewerUrl: string;
  remoteUrl: string;
  characters: string[];
  hub(name: string): RetargetHub;
  close(): Promise<void>;
  /** Which pipeline runs: 'startLive' or 'harness'. */
  kind: 'startLive' | 'harness';
}

const ROOT = path.resolve(__dirname, '..');
export const DEFAULT_AVATAR = path.join(ROOT, 'assets/default/default-avatar.glb');
export const DEFAULT_WALK = path.join(ROOT, 'assets/default/default-walk.bvh');

export async function startViewerTestLive(): Promise<ViewerTestLive> {
  const liveFile = path.join(ROOT, 'src/live/node/live.ts');
  if (fs.existsSync(liveFile)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const live = require(liveFile) as {
      startLive(o: Record<string, unknown>): Promise<Omit<ViewerTestLive, 'kind'>>;
    };
    const h = await live.startLive({
      replay: 'default',
      avatars: [DEFAULT_AVATAR],
      remotePort: 0,
      viewerPort: 0,
    });
    return {
      viewerUrl: h.viewerUrl,
      remoteUrl: h.remoteUrl,
      characters: h.characters,
      hub: (n) => h.hub(n),
      close: () => h.close(),
      kind: 'startLive',
    };
  }
  return startHarness();
}

async function startHarness(): Promise<ViewerTestLive> {
  const src = await loadSource(DEFAULT_WALK);
  const clip = src.clip;
  const avatar = await loadAvatar(DEFAULT_AVATAR);
  const name = avatar.name;
  const n = clip.skeleton.boneCount;
  const rot = new Float64Array(4 * n);
  const pos = new Float64Array(3 * n);
  readFrame(clip, 0, rot, pos);
  const hub = new RetargetHub(clip.skeleton, avatar.skeleton);
  hub.calibrate({ rotations: rot, translations: pos });
  const current = { rotations: rot, translations: pos };
  const characters: LiveCharacters = {
    names: () => [name],
    hub: (c) => (c === name ? hub : undefined),
    currentFrame: (c) => (c === name ? current : undefined),
  };
  const remote = await startRemoteServer({ control: new RemoteControl(characters), port: 0 });
  const viewer = await startViewerServer({
    scene: {
      source: viewerSkeleton('default-walk', clip.skeleton),
      avatars: [viewerSkeleton(name, avatar.skeleton, '/avatars/0.glb')],
      remote: { url: remote.url },
    },
    files: { '/avatars/0.glb': DEFAULT_AVATAR },
    port: 0,
  });
  let f = 0;
  const frame = {
    frameNumber: 0,
    timestamp: 0,
    latencyMs: 0,
    dropped: 0,
    fps: 1 / clip.frameTime,
    source: current,
    avatars: [
      { rotations: hub.localRotations, translations: hub.localTranslations, scales: hub.outputScales },
    ],
  };
  const timer = setInterval(() => {
    readFrame(clip, f % clip.frameCount, rot, pos);
    const t0 = performance.now();
    hub.update(rot, pos, f === 0 ? 0 : clip.frameTime);
    frame.latencyMs = performance.now() - t0;
    frame.frameNumber = f;
    frame.timestamp = f * clip.frameTime;
    viewer.publish(frame);
    f++;
  }, clip.frameTime * 1000);
  return {
    viewerUrl: viewer.url,
    remoteUrl: remote.url,
    characters: [name],
    hub: () => hub,
    close: async () => {
      clearInterval(timer);
      await viewer.close();
      await remote.close();
    },
    kind: 'harness',
  };
}
