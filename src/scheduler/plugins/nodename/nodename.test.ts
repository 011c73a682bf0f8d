import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { newNodeInfo } from '../../framework/node-info.js';
import { Code, CycleState, type Pod } from '../../framework/types.js';
import { NodeName } from './index.js';

const pod = (nodeName?: string): Pod => ({ metadata: { name: 'p' }, spec: { containers: [], nodeName } }) as Pod;
const filter = (p: Pod) => new NodeName().filter(new CycleState(), p, newNodeInfo({ metadata: { name: 'foo' } }));

describe('NodeName', () => {
  it('no node name fits any node', () => assert.equal(filter(pod()).code, Code.Success));
  it('the named node fits', () => assert.equal(filter(pod('foo')).code, Code.Success));
  it('another node does not', () => {
    const s = filter(pod('bar'));
    assert.equal(s.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(s.reasons, ["node(s) didn't match the requested node name"]);
  });
  it('registers node additions', () => {
    assert.deepEqual(new NodeName().eventsToRegister(), [{ event: { resource: 'Node', actions: ['Add'] } }]);
  });
});
