import { after, before, describe, it } from 'node:test';
import { SharedInformerFactory } from '../../client/cache/factory.js';
import type { EventRecorder } from '../../client/events/broadcaster.js';
import { isNotFound } from '../../client/types.js';
import { type ControlPlane, startControlPlane } from '../../index.js';
import assert from '../../testing/assert.js';
import { eventually, runControllers } from '../../testing/controllers.js';
import { realClock } from '../../util/clock.js';
import { silentLogger } from '../../util/logger.js';
import type { ControllerContext } from '../context.js';
import type { ControllerManager } from '../manager.js';
import { DEFAULT_CONTROLLER_MANAGER_OPTIONS } from '../options.js';
import { ServiceAccountsController, serviceAccountController } from './index.js';

let cp: ControlPlane;
let manager: ControllerManager;

async function createNamespace(name: string): Promise<void> {
  await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

const noEvents: EventRecorder = { event() {}, eventf() {}, annotatedEventf() {} };

describe('serviceaccount controller', () => {
  before(async () => {
    cp = await startControlPlane({ storage: 'memory' });
    manager = await runControllers(cp, [serviceAccountController]);
  });

  after(async () => {
    await manager?.stop();
    await cp?.stop();
  });

  it('gives every namespace, old and new, a default ServiceAccount', async () => {
    await createNamespace('team-a');
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'team-a']) {
      const sa = await eventually(() => cp.client.serviceAccounts(ns).get('default'));
      assert.equal(sa.metadata.namespace, ns);
    }
  });

  it('creates the default ServiceAccount again after it was deleted', async () => {
    await createNamespace('team-b');
    const first = await eventually(() => cp.client.serviceAccounts('team-b').get('default'));
    await cp.client.serviceAccounts('team-b').delete('default');
    const second = await eventually(async () => {
      const sa = await cp.client.serviceAccounts('team-b').get('default');
      assert.notEqual(sa.metadata.uid, first.metadata.uid);
      return sa;
    });
    assert.equal(second.metadata.name, 'default');
  });

  it('creates nothing in a namespace being deleted', async () => {
    await createNamespace('leaving');
    await eventually(() => cp.client.serviceAccounts('leaving').get('default'));
    // No namespace controller runs here: the deleted namespace stays Terminating.
    await cp.client.namespaces().delete('leaving');
    await cp.client.serviceAccounts('leaving').delete('default');

    // A controller of our own, synced by hand once its caches show the namespace Terminating.
    const stop = new AbortController();
    const informers = new SharedInformerFactory({ client: cp.client });
    const ctx: ControllerContext = {
      client: cp.client,
      informers,
      clock: realClock,
      logger: silentLogger,
      recorder: () => noEvents,
      options: { ...DEFAULT_CONTROLLER_MANAGER_OPTIONS },
      signal: stop.signal,
    };
    const controller = new ServiceAccountsController(ctx);
    informers.start();
    try {
      await informers.waitForCacheSync(stop.signal);
      await eventually(() => {
        const ns = informers.get('namespaces.v1')?.getIndexer().getByKey('leaving');
        assert.equal(ns?.status?.phase, 'Terminating');
        assert.equal(informers.get('serviceaccounts.v1')?.getIndexer().getByKey('leaving/default'), undefined);
      });
      await controller.sync('leaving');
      await assert.rejects(cp.client.serviceAccounts('leaving').get('default'), isNotFound);
    } finally {
      stop.abort();
      controller.queue.shutDown();
      await informers.shutdown();
    }
  });
});
