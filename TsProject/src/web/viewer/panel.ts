/**
 * The viewer's control panel (lil-gui): just another remote-control client. It speaks the
 * remote-control protocol (issue 4; JSON text messages, one per WebSocket message) to the same server
 * the other remotes use:
 * - on connect: `refresh` (characters, hand-pose presets), then `getCharacterData` for the picked one;
 * - one control per parameter (number -> slider with min/max/step, boolean -> checkbox, enum ->
 *   dropdown), grouped by `group`; a change sends `updateValueRealtime` (at most one per property every
 *   {@link SEND_INTERVAL_MS}, the last value always sent), the reply's applied value is shown;
 * - buttons for `calibrateIPose`, `resetCalibration`, `calibrateHeadForward`, `autoCalibrateAll`, and a
 *   hand-pose preset dropdown (`setHandPosePreset`);
 * - `valueChanged` broadcasts update the controls, `characterDataChanged` re-fetches; error replies
 *   are shown (field and message) and the controls re-fetched, since nothing changed on the server.
 */
import GUI, { type Controller } from 'lil-gui';

/** One parameter as `getCharacterData` lists it. */
export interface RemoteParameter {
  name: string;
  label?: string;
  group?: string;
  type: 'number' | 'boolean' | 'enum';
  value: number | boolean | string;
  min?: number;
  max?: number;
  step?: number;
  options?: string[];
}

/** What tests and the overlay read. */
export interface PanelState {
  connected: boolean;
  /** True once the controls of a character are built. */
  ready: boolean;
  character: string | null;
  characters: string[];
  handPosePresets: string[];
  /** Current values of the controls, by parameter name. */
  values: Record<string, number | boolean | string>;
  /** Error replies received (`action: field: message`), oldest first, at most 20. */
  errors: string[];
  /** Messages received. */
  received: number;
}

const SEND_INTERVAL_MS = 50;
/** Parameter groups open when the panel is first built. */
const OPEN_GROUPS = 3;
const CALIBRATIONS = [
  'calibrateIPose',
  'resetCalibration',
  'calibrateHeadForward',
  'autoCalibrateAll',
] as const;
const CALIBRATION_LABELS: Record<(typeof CALIBRATIONS)[number], string> = {
  calibrateIPose: 'Calibrate (I-pose)',
  resetCalibration: 'Reset calibration',
  calibrateHeadForward: 'Calibrate head forward',
  autoCalibrateAll: 'Auto-calibrate all',
};

type Message = Record<string, unknown>;

export class RemotePanel {
  readonly state: PanelState = {
    connected: false,
    ready: false,
    character: null,
    characters: [],
    handPosePresets: [],
    values: {},
    errors: [],
    received: 0,
  };
  private ws: WebSocket | null = null;
  private nextId = 1;
  private readonly gui: GUI;
  private readonly statusEl: HTMLElement;
  private pick: { character: string } = { character: '' };
  private pickCtrl: Controller | null = null;
  private characterFolder: GUI | null = null;
  private controllers = new Map<string, Controller>();
  private values: Record<string, number | boolean | string> = {};
  private lastSent = new Map<string, number>();
  private timers = new Map<string, ReturnType<typeof setTimeout>>();
  private closed = false;
  /** The controls were built once (later rebuilds keep the user's open/closed folders). */
  private built = false;

  /**
   * A viewer-side toggle (not a remote parameter) in a "View" folder of this panel (its element
   * carries `data-view="<label>"`): `onChange` gets the new value when the user flips it. Returns a
   * setter that shows a value changed elsewhere (e.g. `kindViewer.setShowRaw`) without calling `onChange`.
   */
  addViewToggle(label: string, value: boolean, onChange: (on: boolean) => void): (on: boolean) => void {
    const folder = this.gui.folders.find((f) => f._title === 'View') ?? this.gui.addFolder('View');
    const obj = { [label]: value };
    const ctrl = folder.add(obj, label).onChange((v: boolean) => onChange(v));
    ctrl.domElement.dataset.view = label;
    return (on) => {
      obj[label] = on;
      ctrl.updateDisplay();
    };
  }

  constructor(
    private readonly url: string,
    private readonly token: string | undefined,
    private readonly preferred: string[],
  ) {
    this.gui = new GUI({ title: 'Remote control' });
    this.statusEl = document.createElement('div');
    this.statusEl.className = 'panel-status';
    this.gui.domElement.appendChild(this.statusEl);
    this.setStatus('connecting…');
    this.connect();
  }

  close(): void {
    this.closed = true;
    this.ws?.close();
    this.gui.destroy();
  }

  private setStatus(text: string, error = false): void {
    this.statusEl.textContent = text;
    this.statusEl.classList.toggle('error', error);
  }

  private connect(): void {
    const sep = this.url.includes('?') ? '&' : '?';
    const url = this.token ? `${this.url}${sep}token=${encodeURIComponent(this.token)}` : this.url;
    let ws: WebSocket;
    try {
      ws = new WebSocket(url);
    } catch (e) {
      this.setStatus(`cannot open ${this.url}: ${(e as Error).message}`, true);
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.state.connected = true;
      this.setStatus(`connected to ${this.url}`);
      this.send({ action: 'refresh' });
    };
    ws.onmessage = (ev) => {
      if (typeof ev.data !== 'string') return;
      let msg: Message;
      try {
        msg = JSON.parse(ev.data) as Message;
      } catch {
        return;
      }
      this.state.received++;
      this.onMessage(msg);
    };
    ws.onclose = () => {
      this.state.connected = false;
      this.ws = null;
      if (this.closed) return;
      this.setStatus(`disconnected from ${this.url}; retrying`, true);
      setTimeout(() => this.connect(), 2000);
    };
  }

  private send(msg: Message): void {
    if (this.ws?.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify({ ...msg, id: this.nextId++ }));
  }

  private onMessage(msg: Message): void {
    const action = msg.action;
    if (msg.ok === false) {
      const err = (msg.error ?? {}) as { field?: string; message?: string };
      const text = `${String(action)}: ${err.field ?? '?'}: ${err.message ?? 'error'}`;
      this.state.errors.push(text);
      if (this.state.errors.length > 20) this.state.errors.shift();
      this.setStatus(text, true);
      // nothing changed on the server: show its values again
      if (this.state.character) this.fetchCharacter(this.state.character);
      return;
    }
    switch (action) {
      case 'refresh':
        this.onRefresh(msg);
        break;
      case 'getCharacterData':
        if (msg.characterName === this.state.character)
          this.buildControls(msg.parameters as RemoteParameter[]);
        break;
      case 'updateValueRealtime':
      case 'valueChanged':
        if (msg.characterName === this.state.character) this.showValue(String(msg.property), msg.value);
        break;
      case 'characterDataChanged':
        if (this.state.character && msg.characterName === this.state.character)
          this.fetchCharacter(this.state.character);
        break;
      case 'setHandPosePreset':
      case 'calibrateIPose':
      case 'resetCalibration':
      case 'calibrateHeadForward':
      case 'autoCalibrateAll':
        this.setStatus(`${action}: done`);
        if (this.state.character) this.fetchCharacter(this.state.character);
        break;
      default:
        break;
    }
  }

  private onRefresh(msg: Message): void {
    const characters = Array.isArray(msg.characters) ? msg.characters.map(String) : [];
    const presets = Array.isArray(msg.handPosePresets) ? msg.handPosePresets.map(String) : [];
    this.state.characters = characters;
    this.state.handPosePresets = presets;
    this.pickCtrl?.destroy();
    this.pickCtrl = null;
    if (characters.length === 0) {
      this.setStatus('no characters registered', true);
      return;
    }
    const keep =
      this.state.character && characters.includes(this.state.character) ? this.state.character : null;
    const first = keep ?? this.preferred.find((n) => characters.includes(n)) ?? characters[0];
    this.pick = { character: first };
    this.pickCtrl = this.gui
      .add(this.pick, 'character', characters)
      .name('Character')
      .onChange((name: string) => this.selectCharacter(name));
    this.pickCtrl.domElement.dataset.param = 'character';
    this.selectCharacter(first);
  }

  private selectCharacter(name: string): void {
    this.state.character = name;
    this.state.ready = false;
    this.fetchCharacter(name);
  }

  private fetchCharacter(name: string): void {
    this.send({ action: 'getCharacterData', characterName: name });
  }

  private buildControls(parameters: RemoteParameter[]): void {
    const name = this.state.character!;
    // keep the folders' open/closed state across rebuilds
    const wasClosed = new Set<string>();
    this.characterFolder?.folders.forEach((f) => {
      if (f._closed) wasClosed.add(f.$title.textContent ?? '');
    });
    this.characterFolder?.destroy();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.controllers.clear();
    this.values = {};
    const root = this.gui.addFolder(name);
    this.characterFolder = root;
    const groups = new Map<string, GUI>();
    const folderOf = (group: string | undefined): GUI => {
      if (!group) return root;
      let f = groups.get(group);
      if (!f) {
        f = root.addFolder(group);
        // the first groups open (scales, head, floor), the long ones (IK, fingers, hands) closed
        if (wasClosed.has(group) || (!this.built && groups.size >= OPEN_GROUPS)) f.close();
        groups.set(group, f);
      }
      return f;
    };
    for (const p of Array.isArray(parameters) ? parameters : []) {
      if (!p || typeof p.name !== 'string') continue;
      const folder = folderOf(p.group);
      this.values[p.name] = p.value;
      let ctrl: Controller;
      if (p.type === 'number' && typeof p.value === 'number') {
        ctrl = folder.add(this.values, p.name, p.min, p.max, p.step);
      } else if (p.type === 'boolean' && typeof p.value === 'boolean') {
        ctrl = folder.add(this.values, p.name);
      } else if (p.type === 'enum' && Array.isArray(p.options)) {
        ctrl = folder.add(this.values, p.name, p.options);
      } else {
        continue;
      }
      ctrl.name(p.label ?? p.name);
      ctrl.domElement.dataset.param = p.name;
      ctrl.onChange((v: number | boolean | string) => this.changed(p.name, v));
      this.controllers.set(p.name, ctrl);
    }
    // actions
    const actions: Record<string, () => void> = {};
    const actionFolder = root.addFolder('Calibration');
    for (const a of CALIBRATIONS) {
      actions[a] = () => this.send({ action: a, characterName: name });
      const c = actionFolder.add(actions, a).name(CALIBRATION_LABELS[a]);
      c.domElement.dataset.action = a;
    }
    if (this.state.handPosePresets.length > 0) {
      const hands = root.addFolder('Hand pose');
      const hp = { hand: 'both', preset: this.state.handPosePresets[0] };
      hands.add(hp, 'hand', ['both', 'left', 'right']).name('Hand').domElement.dataset.param = 'hand';
      const presetCtrl = hands
        .add(hp, 'preset', this.state.handPosePresets)
        .name('Preset')
        .onChange(() =>
          this.send({ action: 'setHandPosePreset', characterName: name, hand: hp.hand, preset: hp.preset }),
        );
      presetCtrl.domElement.dataset.param = 'handPosePreset';
      actions.applyHandPose = () =>
        this.send({ action: 'setHandPosePreset', characterName: name, hand: hp.hand, preset: hp.preset });
      hands.add(actions, 'applyHandPose').name('Apply preset').domElement.dataset.action =
        'setHandPosePreset';
    }
    this.state.values = this.values;
    this.state.ready = true;
    this.built = true;
  }

  /** A control changed by the user: send it, at most once per SEND_INTERVAL_MS per property. */
  private changed(property: string, value: number | boolean | string): void {
    const character = this.state.character;
    if (!character) return;
    const now = performance.now();
    const last = this.lastSent.get(property) ?? -Infinity;
    const pending = this.timers.get(property);
    if (pending) clearTimeout(pending);
    const sendNow = () => {
      this.timers.delete(property);
      this.lastSent.set(property, performance.now());
      this.send({
        action: 'updateValueRealtime',
        characterName: character,
        property,
        value: this.values[property],
      });
    };
    if (now - last >= SEND_INTERVAL_MS) sendNow();
    else this.timers.set(property, setTimeout(sendNow, SEND_INTERVAL_MS - (now - last)));
    void value;
  }

  /** A value from the server (reply or broadcast): shown without sending it back. */
  private showValue(property: string, value: unknown): void {
    const ctrl = this.controllers.get(property);
    if (!ctrl || value === undefined) return;
    if (this.timers.has(property)) return; // the user is still changing it; the last value goes out soon
    this.values[property] = value as number | boolean | string;
    ctrl.updateDisplay();
  }
}
