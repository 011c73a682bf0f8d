import { after, before, describe, it } from 'node:test';
import { type ControlPlane, startControlPlane } from '../index.js';
import assert from '../testing/assert.js';
import { eventually } from '../testing/controllers.js';
import type { ControllerContext, ControllerDescriptor } from './context.js';
import { ControllerManager } from './manager.js';
import { isControllerEnabled, validateControllerSelection } from './names.js';

describe('--controllers', () => {
  it('turns controllers on and off as upstream does, with aliases', () => {
    assert.equal(isControllerEnabled('deployment-controller', ['*']), true);
    assert.equal(isControllerEnabled('bootstrap-signer-controller', ['*']), false);
    assert.equal(isControllerEnabled('bootstrap-signer-controller', ['*', 'bootstrapsigner']), true);
    assert.equal(isControllerEnabled('deployment-controller', ['*', '-deployment']), false);
    assert.equal(isControllerEnabled('deployment-controller', ['*', '-deployment-controller']), false);
    assert.equal(isControllerEnabled('deployment-controller', ['replicaset']), false);
    assert.equal(isControllerEnabled('replicaset-controller', ['replicaset']), true);
    assert.equal(isControllerEnabled('pod-garbage-collector-controller', ['podgc']), true);
  });

  it('refuses unknown names with upstream message', () => {
    assert.deepEqual(validateControllerSelection(['*', '-nope', 'garbagecollector']), [
      '"nope" is not in the list of known controllers',
    ]);
    assert.throws(
      () => new ControllerManager({ client: {} as never, descriptors: [], options: { controllers: ['red'] } }),
      /validation failed for '--controllers': \["red" is not in the list of known controllers\]/,
    );
  });
});

/** A controller that counts its terms and holds until its signal aborts. */
function probe(name: string, log: string[]): ControllerDescriptor {
  return {
    name,
    create(ctx: ControllerContext) {
      return {
        async run() {
          log.push(`start ${name}`);
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
          log.push(`stop ${name}`);
        },
      };
    },
  };
}

describe('ControllerManager', () => {
  let cp: ControlPlane;
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
  });
  after(async () => {
    await cp.stop();
  });

  it('runs only the enabled controllers, and stops them', async () => {
    const log: string[] = [];
    const manager = new ControllerManager({
      client: cp.client,
      descriptors: [probe('deployment-controller', log), probe('replicaset-controller', log)],
      options: { leaderElect: false, controllers: ['*', '-replicaset'] },
    });
    manager.start();
    await eventually(() => assert.deepEqual(log, ['start deployment-controller']));
    await manager.stop();
    assert.deepEqual(log, ['start deployment-controller', 'stop deployment-controller']);
  });

  it('with leader election, one of two managers runs the controllers; when it stops the other takes over', async () => {
    const logs: string[][] = [[], []];
    const timings = {
      leaderElectLeaseDurationMs: 1500,
      leaderElectRenewDeadlineMs: 1000,
      leaderElectRetryPeriodMs: 100,
    };
    const managers = logs.map(
      (log, i) =>
        new ControllerManager({
          client: cp.client,
          descriptors: [probe('namespace-controller', log)],
          options: timings,
          identity: `cm-${i}`,
        }),
    );
    for (const m of managers) m.start();
    await eventually(() => assert.equal(managers.filter((m) => m.isLeader()).length, 1));
    const leader = managers.findIndex((m) => m.isLeader());
    const other = 1 - leader;
    const lease = await cp.client.leases('kube-system').get('kube-controller-manager');
    assert.equal(lease.spec.holderIdentity, `cm-${leader}`);
    assert.deepEqual(logs[other], []);
    await managers[leader]?.stop();
    assert.deepEqual(logs[leader], ['start namespace-controller', 'stop namespace-controller']);
    await eventually(() => assert.deepEqual(logs[other], ['start namespace-controller']));
    await managers[other]?.stop();
  });
});
