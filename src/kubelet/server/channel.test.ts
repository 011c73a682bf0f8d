import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import {
  decodeMessage,
  EXEC_PROTOCOLS,
  encodeMessage,
  exitCodeStatus,
  selectProtocol,
  statusPayload,
  successStatus,
} from './channel.js';

const proto = (name: string) => {
  const p = EXEC_PROTOCOLS.find((x) => x.name === name);
  assert.ok(p);
  return p;
};

describe('channel protocols', () => {
  it('picks the first protocol the client offers that the server speaks', () => {
    assert.equal(selectProtocol(['v5.channel.k8s.io', 'v4.channel.k8s.io'], EXEC_PROTOCOLS)?.name, 'v5.channel.k8s.io');
    assert.equal(selectProtocol(['x', 'v4.base64.channel.k8s.io'], EXEC_PROTOCOLS)?.name, 'v4.base64.channel.k8s.io');
    assert.equal(selectProtocol([], EXEC_PROTOCOLS)?.name, 'channel.k8s.io');
    assert.equal(selectProtocol(['nope'], EXEC_PROTOCOLS), undefined);
  });

  it('frames binary messages with the channel byte first', () => {
    const m = encodeMessage(proto('v5.channel.k8s.io'), 1, 'hi');
    assert.equal(m.binary, true);
    assert.deepEqual([...(m.data as Buffer)], [1, 104, 105]);
    assert.deepEqual(decodeMessage(proto('v5.channel.k8s.io'), Buffer.from([0, 120])), {
      channel: 0,
      data: Buffer.from('x'),
    });
  });

  it('reads v5 close signals, which older versions do not have', () => {
    assert.deepEqual(decodeMessage(proto('v5.channel.k8s.io'), Buffer.from([255, 0])), { closed: 0 });
    assert.deepEqual(decodeMessage(proto('v4.channel.k8s.io'), Buffer.from([255, 0])), {
      channel: 255,
      data: Buffer.from([0]),
    });
    assert.equal(decodeMessage(proto('v5.channel.k8s.io'), Buffer.alloc(0)), undefined);
  });

  it('frames base64 messages as text with an ASCII channel', () => {
    const p = proto('v4.base64.channel.k8s.io');
    const m = encodeMessage(p, 2, 'err');
    assert.equal(m.binary, false);
    assert.equal(m.data, `2${Buffer.from('err').toString('base64')}`);
    assert.deepEqual(decodeMessage(p, Buffer.from(`0${Buffer.from('in').toString('base64')}`)), {
      channel: 0,
      data: Buffer.from('in'),
    });
  });

  it('writes the exit status as the kubelet does', () => {
    assert.equal(statusPayload(proto('v5.channel.k8s.io'), successStatus()), '{"metadata":{},"status":"Success"}');
    assert.equal(
      statusPayload(proto('v4.channel.k8s.io'), exitCodeStatus(['sh', '-c', 'exit 3'], 3)),
      '{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing ' +
        'command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode",' +
        '"message":"3"}]}}',
    );
    assert.equal(statusPayload(proto('v3.channel.k8s.io'), successStatus()), undefined);
    assert.match(statusPayload(proto('channel.k8s.io'), exitCodeStatus(['false'], 1)) ?? '', /^command terminated/);
  });
});
