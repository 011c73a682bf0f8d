import { describe, it } from 'node:test';
import { StatusError } from '../../api/status-error.js';
import assert from '../../testing/assert.js';
import { attributesFor } from './attributes.js';
import { AdmissionChain } from './chain.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionForbidden } from './types.js';

const pods = { group: '', version: 'v1', resource: 'pods', kind: 'Pod', namespaced: true };

function attrs(operation: AdmissionAttributes['operation'] = 'CREATE'): AdmissionAttributes {
  return attributesFor(pods, {
    operation,
    object: { metadata: { name: 'web' } },
    namespace: 'default',
    name: 'web',
  });
}

function recorder(name: string, log: string[], opts: { ops?: string[] } = {}): AdmissionPlugin {
  return {
    name,
    ...(opts.ops ? { handles: (op: string) => (opts.ops as string[]).includes(op) } : {}),
    admit: () => {
      log.push(`admit ${name}`);
    },
    validate: () => {
      log.push(`validate ${name}`);
    },
  };
}

describe('AdmissionChain', () => {
  it('runs every mutating step, in order, before any validating step', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([recorder('A', log), recorder('B', log), recorder('C', log)]);
    const a = attrs();
    await chain.admit(a);
    await chain.validate(a);
    assert.deepEqual(log, ['admit A', 'admit B', 'admit C', 'validate A', 'validate B', 'validate C']);
    assert.deepEqual(chain.mutatingNames, ['A', 'B', 'C']);
  });

  it('skips plugins for operations they do not handle', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([recorder('OnlyCreate', log, { ops: ['CREATE'] }), recorder('All', log)]);
    await chain.admit(attrs('DELETE'));
    assert.deepEqual(log, ['admit All']);
  });

  it('skips plugins for resources they do not name', async () => {
    const log: string[] = [];
    const chain = new AdmissionChain([
      { ...recorder('PodsOnly', log), resources: ['/pods'] },
      { ...recorder('NodesOnly', log), resources: ['/nodes', 'apps/deployments'] },
      recorder('All', log),
    ]);
    const a = attrs();
    await chain.admit(a);
    await chain.validate(a);
    assert.deepEqual(log, ['admit PodsOnly', 'admit All', 'validate PodsOnly', 'validate All']);
  });

  it('answers at once when every plugin does, and waits for a plugin that answers later before the next', async () => {
    const log: string[] = [];
    const later = (name: string): AdmissionPlugin => ({
      name,
      admit: () => new Promise<void>((resolve) => setTimeout(() => resolve(void log.push(`admit ${name}`)), 5)),
      validate: () => new Promise<void>((resolve) => setTimeout(() => resolve(void log.push(`validate ${name}`)), 5)),
    });
    const syncOnly = new AdmissionChain([recorder('A', log), recorder('B', log)]);
    assert.equal(syncOnly.admit(attrs()), undefined);
    assert.equal(syncOnly.validate(attrs()), undefined);
    assert.deepEqual(log, ['admit A', 'admit B', 'validate A', 'validate B']);

    log.length = 0;
    const mixed = new AdmissionChain([recorder('A', log), later('Slow'), recorder('C', log)]);
    const a = attrs();
    const admitting = mixed.admit(a);
    assert.ok(admitting instanceof Promise);
    assert.deepEqual(log, ['admit A'], 'the plugin after the slow one waits for it');
    await admitting;
    await mixed.validate(a);
    assert.deepEqual(log, ['admit A', 'admit Slow', 'admit C', 'validate A', 'validate Slow', 'validate C']);

    // A plugin after the slow one that refuses: the phase's promise rejects with its error.
    const refusing = new AdmissionChain([
      later('Slow'),
      {
        name: 'No',
        admit: (x) => {
          throw admissionForbidden(x, 'no');
        },
      },
    ]);
    await assert.rejects(Promise.resolve(refusing.admit(attrs())), /forbidden: no/);
  });

  it('runs the mutating plugins once more when one asks for it (after an answer given later too)', async () => {
    const log: string[] = [];
    const asking: AdmissionPlugin = {
      name: 'Asks',
      admit: async (x) => {
        log.push(`admit Asks reinvoke=${x.reinvocation?.isReinvoke}`);
        if (x.reinvocation && !x.reinvocation.isReinvoke) x.reinvocation.shouldReinvoke = true;
      },
    };
    const chain = new AdmissionChain([recorder('A', log), asking]);
    await chain.admit(attrs());
    assert.deepEqual(log, ['admit A', 'admit Asks reinvoke=false', 'admit A', 'admit Asks reinvoke=true']);
  });

  it('lists only plugins with the step', () => {
    const chain = new AdmissionChain([
      { name: 'M', admit() {} },
      { name: 'V', validate() {} },
      { name: 'Both', admit() {}, validate() {} },
    ]);
    assert.deepEqual(chain.mutatingNames, ['M', 'Both']);
    assert.deepEqual(chain.validatingNames, ['V', 'Both']);
  });

  it('stops at the first refusal, whose error reaches the client as it is', async () => {
    const log: string[] = [];
    const deny: AdmissionPlugin = {
      name: 'Deny',
      admit: (a) => {
        throw admissionForbidden(a, 'not today');
      },
    };
    const chain = new AdmissionChain([deny, recorder('After', log)]);
    await assert.rejects(
      async () => chain.admit(attrs()),
      (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, 403);
        assert.equal(err.reason, 'Forbidden');
        assert.equal(err.message, 'pods "web" is forbidden: not today');
        assert.deepEqual(err.status.details, { name: 'web', kind: 'pods' });
        return true;
      },
    );
    assert.deepEqual(log, []);
  });
});

describe('admissionForbidden', () => {
  it('names the object by its generateName before a name is generated, as upstream does', () => {
    const a = attributesFor(pods, {
      operation: 'CREATE',
      object: { metadata: { generateName: 'web-' } },
      namespace: 'default',
      name: '',
    });
    assert.equal(admissionForbidden(a, 'no').message, 'pods "web-" is forbidden: no');
  });

  it('qualifies the resource with its group and leaves out the subresource', () => {
    const a = attributesFor(
      { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true },
      { operation: 'UPDATE', object: { metadata: {} }, subresource: 'scale', namespace: 'ns', name: 'web' },
    );
    assert.equal(admissionForbidden(a, 'no').message, 'deployments.apps "web" is forbidden: no');
  });

  it('says Unknown when there is no name at all', () => {
    const a = attributesFor(pods, { operation: 'DELETE', namespace: 'default', name: '' });
    assert.equal(admissionForbidden(a, 'no').message, 'pods "Unknown" is forbidden: no');
  });
});
