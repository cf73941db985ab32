/**
 * Recording the webcam's landmarks in the recorded landmark file format of issue 12 (browser only):
 * `{ "image": { "width", "height" }, "frames": [ { "timestampMs", "landmarks": [33 x {x, y, z, visibility?, presence?}],
 * "worldLandmarks": [...] } ] }`, timestamps in ms from the first recorded frame, a frame with no person as
 * `"landmarks": []`. The same file is what `kind puppet render --landmarks` and the page's recording source read.
 */
import type { LandmarkRecording, PoseFrame } from '../../puppet';

export class LandmarkRecorder {
  private frames: PoseFrame[] = [];
  private t0 = Number.NaN;
  private image = { width: 0, height: 0 };
  active = false;

  /** Start a new recording of frames from an image of `width` x `height` px (the camera's). */
  start(width: number, height: number): void {
    this.frames = [];
    this.t0 = Number.NaN;
    this.image = { width, height };
    this.active = true;
  }

  /** Add a frame (while active); its timestamp is made relative to the first frame's. */
  add(frame: PoseFrame): void {
    if (!this.active) return;
    if (Number.isNaN(this.t0)) this.t0 = frame.timestampMs;
    const f: PoseFrame = { timestampMs: Math.round((frame.timestampMs - this.t0) * 1000) / 1000 };
    if (frame.landmarks) f.landmarks = frame.landmarks;
    if (frame.worldLandmarks) f.worldLandmarks = frame.worldLandmarks;
    this.frames.push(f);
  }

  stop(): LandmarkRecording {
    this.active = false;
    return this.recording();
  }

  get frameCount(): number {
    return this.frames.length;
  }

  recording(): LandmarkRecording {
    return { image: { ...this.image }, frames: this.frames.slice() };
  }

  /** The recording as JSON text, one frame per line (diffable, still plain JSON). */
  json(): string {
    const r = this.recording();
    const lines = r.frames.map((f) => JSON.stringify(f));
    return `{"image":${JSON.stringify(r.image)},"frames":[\n${lines.join(',\n')}\n]}\n`;
  }

  /** Offer the JSON as a download named `name`. */
  download(name = 'landmarks.json'): void {
    const url = URL.createObjectURL(new Blob([this.json()], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }
}
