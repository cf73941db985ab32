/**
 * One message size limit in Unity (issue 21 review, finding 5): RetargetingRemoteController.maxMessageBytes
 * cannot go over the protocol's DEFAULT_MAX_MESSAGE_BYTES (the bundle's remote() refuses a larger message
 * with a protocol error, so a 16-32 KiB message would get that instead of 1009). The clamp
 * (KindWebSocketServer.ClampToProtocol, Unity-free) runs under Mono; the component's use of it (Unity-only)
 * is checked in its source. The Mono half is skipped with a printed reason without mcs/mono.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../src/live/remote';
import { monoAvailable, runMonoProgram } from './helpers/mono';

const HAS = monoAvailable('message size limit');
const PKG = path.resolve(__dirname, '../../Packages/com.kind.retargeting');

(HAS ? describe : describe.skip)('KindWebSocketServer.ClampToProtocol under Mono', () => {
  it("clamps to 1..the protocol's limit, which is DEFAULT_MAX_MESSAGE_BYTES", () => {
    const out = runMonoProgram(
      [
        path.join(PKG, 'Runtime/Bridge/KindWebSocketServer.cs'),
        path.join(__dirname, 'fixtures/KindMessageLimitHost.cs'),
      ],
      ['32768', '16385', '16384', '1024', '0', '-5'],
    );
    expect(out).toEqual([
      `${DEFAULT_MAX_MESSAGE_BYTES} ${DEFAULT_MAX_MESSAGE_BYTES}`,
      '16384',
      '16384',
      '16384',
      '1024',
      '1',
      '1',
    ]);
  });
});

describe('RetargetingRemoteController.maxMessageBytes (source)', () => {
  const src = fs.readFileSync(path.join(PKG, 'Runtime/Shells/RetargetingRemoteController.cs'), 'utf8');
  it('the inspector range stops at the protocol limit and the server gets the clamped value', () => {
    expect(src).toMatch(
      /\[Range\(1, KindWebSocketServer\.ProtocolMaxMessageBytes\)\]\s*public int maxMessageBytes = KindWebSocketServer\.DefaultMaxMessageBytes;/,
    );
    expect(src).toMatch(/int messageBytes = KindWebSocketServer\.ClampToProtocol\(maxMessageBytes\);/);
    expect(src).toMatch(/MaxMessageBytes = messageBytes,/);
    expect(src).not.toMatch(/MaxMessageBytes = maxMessageBytes/);
  });
});
