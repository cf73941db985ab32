/**
 * The remote control's scope (the original's RetargetingRemoteController.registeredCharacters, issue 21
 * part 2): when set, `refresh` lists only those characters and an action naming another one gets the
 * unknown-character error naming it; no scope (null) serves every character. Tested on the protocol
 * (RemoteControl) and through the bundle the package ships (Runtime/Resources/kind-retargeting/main.mjs,
 * in a bare vm context as Unity loads it), whose remote(text, clientId, scope) takes the scope with every
 * call, so a hot reload (a fresh bundle context, exportState -> importState) keeps it.
 * Not run in Unity: the C# side (RetargetingRemoteController.registeredCharacters) is compile-checked only.
 */
import { RemoteControl } from '../src/live/remote';
import { makeHumanoid } from './helpers/humanoid';
import { hubState, makeFixture } from './remote.fixture';
import { loadShippedBundle, setupJson } from './unity.helpers';

interface Api {
  createHub(setup: string): number;
  remote(text: string, client: string, scope?: string | null): string;
  exportState(): string;
  importState(json: string): void;
}

const loadShipped = (): Api => loadShippedBundle<Api>();

const ask = (rc: RemoteControl, msg: unknown) => JSON.parse(rc.handle(JSON.stringify(msg)).reply);

describe('RemoteControl scope', () => {
  it('no scope: every character is listed and addressable', () => {
    const fx = makeFixture();
    const rc = new RemoteControl(fx.characters);
    expect(rc.scope).toBeNull();
    expect(ask(rc, { action: 'refresh' }).characters).toEqual(['Alice', 'Bob', 'Carol']);
    expect(ask(rc, { action: 'getCharacterData', characterName: 'Bob' }).ok).toBe(true);
  });

  it('a scope: refresh lists only those, in the registry order; unknown names in it are not listed', () => {
    const fx = makeFixture();
    const rc = new RemoteControl(fx.characters, { scope: ['Carol', 'Alice', 'Nobody'] });
    expect(ask(rc, { action: 'refresh' }).characters).toEqual(['Alice', 'Carol']);
    expect(ask(rc, { action: 'getCharacterData', characterName: 'Alice' }).ok).toBe(true);
  });

  it('an action on a character outside the scope is the unknown-character error and changes nothing', () => {
    const fx = makeFixture();
    const rc = new RemoteControl(fx.characters, { scope: ['Alice'] });
    const bob = fx.hubs.get('Bob')!;
    const before = hubState(bob);
    for (const msg of [
      { action: 'getCharacterData', characterName: 'Bob' },
      { action: 'updateValueRealtime', characterName: 'Bob', property: 'avatarScale', value: 1.3 },
      { action: 'setHandPosePreset', characterName: 'Bob', hand: 'both', preset: 'rock' },
      { action: 'calibrateIPose', characterName: 'Bob' },
      { action: 'resetCalibration', characterName: 'Bob' },
      { action: 'calibrateHeadForward', characterName: 'Bob' },
      { action: 'autoCalibrateAll', characterName: 'Bob' },
    ]) {
      const r = rc.handle(JSON.stringify(msg));
      expect(r.broadcast).toBeUndefined();
      const reply = JSON.parse(r.reply);
      expect(reply).toMatchObject({ action: msg.action, ok: false, error: { field: 'characterName' } });
      expect(reply.error.message).toBe(`unknown character "Bob": known are 'Alice'`);
    }
    expect(hubState(bob)).toEqual(before);
    // the same message on a character in the scope works
    expect(
      ask(rc, { action: 'updateValueRealtime', characterName: 'Alice', property: 'avatarScale', value: 1.1 })
        .ok,
    ).toBe(true);
  });

  it('setScope changes it; null serves every character again; an empty scope serves none', () => {
    const fx = makeFixture();
    const rc = new RemoteControl(fx.characters);
    rc.setScope(['Bob']);
    expect(ask(rc, { action: 'refresh' }).characters).toEqual(['Bob']);
    rc.setScope([]);
    expect(ask(rc, { action: 'refresh' }).characters).toEqual([]);
    expect(ask(rc, { action: 'getCharacterData', characterName: 'Bob' }).error.message).toBe(
      'unknown character "Bob": known are (none)',
    );
    rc.setScope(null);
    expect(ask(rc, { action: 'refresh' }).characters).toEqual(['Alice', 'Bob', 'Carol']);
  });
});

describe('remote(text, clientId, scope) in the shipped bundle', () => {
  const source = makeHumanoid({ spineBones: 4 });
  const target = makeHumanoid({ pose: 'A' });
  const reply = (api: Api, msg: unknown, scope?: string | null) =>
    JSON.parse(JSON.parse(api.remote(JSON.stringify(msg), 'c', scope)).reply);

  function withHubs(): Api {
    const api = loadShipped();
    for (const n of ['Alice', 'Bob', 'Carol']) api.createHub(setupJson(n, source, target));
    return api;
  }

  it('absent, null or "": every hub (as before); a JSON array: only those', () => {
    const api = withHubs();
    for (const s of [undefined, null, ''])
      expect(reply(api, { action: 'refresh' }, s).characters).toEqual(['Alice', 'Bob', 'Carol']);
    expect(reply(api, { action: 'refresh' }, '["Carol","Alice"]').characters).toEqual(['Alice', 'Carol']);
    expect(reply(api, { action: 'refresh' }, '[]').characters).toEqual([]);
    // the scope is per call: the next call without one serves every hub again
    expect(reply(api, { action: 'refresh' }).characters).toEqual(['Alice', 'Bob', 'Carol']);
  });

  it('an action on a hub outside the scope is refused naming it; no broadcast', () => {
    const api = withHubs();
    const msg = { action: 'updateValueRealtime', characterName: 'Bob', property: 'avatarScale', value: 1.2 };
    const out = JSON.parse(api.remote(JSON.stringify(msg), 'c', '["Alice"]'));
    expect(out.broadcast).toBeNull();
    expect(JSON.parse(out.reply)).toMatchObject({
      action: 'updateValueRealtime',
      ok: false,
      error: { field: 'characterName', message: `unknown character "Bob": known are 'Alice'` },
    });
    // Bob unchanged; then the same change in scope applies and broadcasts
    const data = reply(api, { action: 'getCharacterData', characterName: 'Bob' });
    expect(data.parameters.find((p: { name: string }) => p.name === 'avatarScale').value).toBe(1);
    const ok = JSON.parse(api.remote(JSON.stringify(msg), 'c', '["Alice","Bob"]'));
    expect(JSON.parse(ok.reply).ok).toBe(true);
    expect(JSON.parse(ok.broadcast)).toMatchObject({ action: 'valueChanged', characterName: 'Bob' });
  });

  it('a malformed scope is an error reply (field "$") and serves nothing', () => {
    const api = withHubs();
    for (const s of ['{"a":1}', '["Alice",3]', 'not json']) {
      const r = reply(api, { action: 'refresh' }, s);
      expect(r).toMatchObject({ ok: false, error: { field: '$' } });
      expect(r.error.message).toMatch(/^remote\(\): scope/);
    }
    expect(reply(api, { action: 'refresh' }, '["Bob"]').characters).toEqual(['Bob']);
  });

  it('survives a hot reload: the new bundle context, given the same scope, serves the same characters', () => {
    const api = withHubs();
    const scope = '["Bob"]';
    expect(reply(api, { action: 'refresh' }, scope).characters).toEqual(['Bob']);
    const next = loadShipped();
    next.importState(api.exportState());
    expect(reply(next, { action: 'refresh' }, scope).characters).toEqual(['Bob']);
    expect(reply(next, { action: 'getCharacterData', characterName: 'Alice' }, scope).error.field).toBe(
      'characterName',
    );
    expect(reply(next, { action: 'refresh' }).characters).toEqual(['Alice', 'Bob', 'Carol']);
  });
});
