import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { addPod, newNodeInfo } from '../../framework/node-info.js';
import { Code, CycleState, type Pod } from '../../framework/types.js';
import { NodePorts } from './index.js';

let seq = 0;
type Port = { hostPort?: number; hostIP?: string; protocol?: string; containerPort?: number };
function pod(ports: Port[], nodeName?: string): Pod {
  seq += 1;
  return {
    metadata: { name: `p${seq}`, namespace: 'default', uid: `u${seq}` },
    spec: { nodeName, containers: [{ name: 'c', ports: ports.map((p) => ({ containerPort: 80, ...p })) }] },
  } as Pod;
}
function run(want: Port[], existing: Port[]) {
  const ni = newNodeInfo({ metadata: { name: 'n' } });
  addPod(ni, pod(existing));
  const pl = new NodePorts();
  const state = new CycleState();
  const p = pod(want);
  const pre = pl.preFilter(state, p);
  if (pre.status.code === Code.Skip) return 'skip';
  const s = pl.filter(state, p, ni);
  return s.isSuccess() ? 'fits' : s.message();
}
const REASON = "node(s) didn't have free ports for the requested pod ports";

describe('NodePorts', () => {
  it('skips pods without host ports', () => {
    assert.equal(run([{ containerPort: 80 }], [{ hostPort: 80 }]), 'skip');
  });
  it('upstream cases', () => {
    assert.equal(
      run(
        [{ hostIP: '127.0.0.1', hostPort: 8080, protocol: 'UDP' }],
        [{ hostIP: '127.0.0.1', hostPort: 9090, protocol: 'UDP' }],
      ),
      'fits',
    );
    assert.equal(
      run(
        [{ hostIP: '127.0.0.1', hostPort: 8080, protocol: 'UDP' }],
        [{ hostIP: '127.0.0.1', hostPort: 8080, protocol: 'UDP' }],
      ),
      REASON,
    );
    assert.equal(
      run(
        [{ hostIP: '127.0.0.1', hostPort: 8080, protocol: 'TCP' }],
        [{ hostIP: '127.0.0.1', hostPort: 8080, protocol: 'UDP' }],
      ),
      'fits',
    );
    assert.equal(
      run(
        [{ hostIP: '127.0.0.2', hostPort: 8080, protocol: 'UDP' }],
        [{ hostIP: '127.0.0.1', hostPort: 8080, protocol: 'UDP' }],
      ),
      'fits',
    );
    // 0.0.0.0 conflicts with any address, both ways
    assert.equal(
      run(
        [{ hostIP: '0.0.0.0', hostPort: 8001, protocol: 'TCP' }],
        [{ hostIP: '127.0.0.1', hostPort: 8001, protocol: 'TCP' }],
      ),
      REASON,
    );
    assert.equal(
      run(
        [{ hostIP: '10.0.10.10', hostPort: 8001, protocol: 'TCP' }],
        [{ hostIP: '0.0.0.0', hostPort: 8001, protocol: 'TCP' }],
      ),
      REASON,
    );
    assert.equal(
      run(
        [{ hostIP: '0.0.0.0', hostPort: 8001, protocol: 'UDP' }],
        [{ hostIP: '127.0.0.1', hostPort: 8001, protocol: 'TCP' }],
      ),
      'fits',
    );
    // defaults: no hostIP is 0.0.0.0, no protocol is TCP
    assert.equal(run([{ hostPort: 8001 }], [{ hostIP: '127.0.0.1', hostPort: 8001, protocol: 'TCP' }]), REASON);
  });
  it('is Unschedulable (preemption may help) and registers pod deletion', () => {
    const ni = newNodeInfo({ metadata: { name: 'n' } });
    const existing = pod([{ hostPort: 80 }], 'n');
    addPod(ni, existing);
    const pl = new NodePorts();
    const p = pod([{ hostPort: 80 }]);
    const state = new CycleState();
    pl.preFilter(state, p);
    assert.equal(pl.filter(state, p, ni).code, Code.Unschedulable);
    const [del, add] = pl.eventsToRegister();
    assert.deepEqual(del?.event, { resource: 'Pod', actions: ['Delete'] });
    assert.deepEqual(add?.event, { resource: 'Node', actions: ['Add'] });
    assert.equal(del?.hint?.(p, existing, undefined), 1);
    assert.equal(del?.hint?.(p, pod([{ hostPort: 81 }], 'n'), undefined), 0);
    assert.equal(del?.hint?.(p, pod([{ hostPort: 80 }]), undefined), 0);
  });
});
