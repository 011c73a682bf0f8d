import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import type { LogFields, Logger } from '../../util/logger.js';
import { APIRegistry } from '../api-registry.js';
import {
  admissionOptionErrors,
  admissionOptionsMessage,
  buildAdmissionChain,
  enabledAdmissionPlugins,
  parsePluginList,
} from './options.js';
import { ALL_ORDERED_PLUGINS, DEFAULT_ON_PLUGINS } from './order.js';

const deps = { registry: new APIRegistry(), priorityClasses: { get: async () => undefined, list: async () => [] } };

function memoryLogger(lines: string[]): Logger {
  const logger: Logger = {
    info: (msg: string, fields?: LogFields) => lines.push(fields ? `${msg} ${JSON.stringify(fields)}` : msg),
    error: (msg: string) => lines.push(msg),
    v: () => logger,
    child: () => logger,
  };
  return logger;
}

describe('admission plugin order and defaults', () => {
  it('knows upstream 1.33 recommended order, webhooks and quota at the end', () => {
    assert.equal(ALL_ORDERED_PLUGINS.length, 36);
    assert.equal(ALL_ORDERED_PLUGINS[0], 'AlwaysAdmit');
    assert.deepEqual(ALL_ORDERED_PLUGINS.slice(-6), [
      'MutatingAdmissionPolicy',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
      'AlwaysDeny',
    ]);
    const at = (n: string) => ALL_ORDERED_PLUGINS.indexOf(n);
    assert.ok(at('NamespaceLifecycle') < at('LimitRanger'));
    assert.ok(at('TaintNodesByCondition') < at('Priority'));
    assert.ok(at('Priority') < at('DefaultTolerationSeconds'));
    for (const name of DEFAULT_ON_PLUGINS) assert.ok(ALL_ORDERED_PLUGINS.includes(name), name);
  });

  it('enables upstream default set in the fixed order, whatever the order of the flags', () => {
    const names = enabledAdmissionPlugins();
    assert.equal(names.length, DEFAULT_ON_PLUGINS.size);
    assert.deepEqual(names.slice(0, 4), [
      'NamespaceLifecycle',
      'LimitRanger',
      'ServiceAccount',
      'TaintNodesByCondition',
    ]);
    assert.ok(!names.includes('NodeRestriction'));
    const custom = enabledAdmissionPlugins({
      enablePlugins: ['NodeRestriction', 'AlwaysPullImages'],
      disablePlugins: ['Priority', 'TaintNodesByCondition'],
    });
    assert.ok(custom.indexOf('NodeRestriction') < custom.indexOf('AlwaysPullImages'));
    assert.ok(custom.indexOf('ServiceAccount') < custom.indexOf('NodeRestriction'));
    assert.ok(!custom.includes('Priority'));
    assert.ok(!custom.includes('TaintNodesByCondition'));
  });

  it('refuses unknown and overlapping names with upstream messages', () => {
    assert.deepEqual(admissionOptionErrors({ enablePlugins: ['Foo'], disablePlugins: ['Bar'] }), [
      'enable-admission-plugins plugin "Foo" is unknown',
      'disable-admission-plugins plugin "Bar" is unknown',
    ]);
    assert.deepEqual(admissionOptionErrors({ enablePlugins: ['Priority'], disablePlugins: ['Priority'] }), [
      '[Priority] in enable-admission-plugins and disable-admission-plugins overlapped',
    ]);
    assert.equal(admissionOptionsMessage(['one']), 'one');
    assert.equal(admissionOptionsMessage(['one', 'two']), '[one, two]');
    assert.throws(() => buildAdmissionChain({ enablePlugins: ['Foo'] }, deps), {
      message: 'enable-admission-plugins plugin "Foo" is unknown',
    });
  });

  it('parses comma lists as the flags give them', () => {
    assert.deepEqual(parsePluginList('NodeRestriction, Priority,,'), ['NodeRestriction', 'Priority']);
    assert.deepEqual(parsePluginList(''), []);
    assert.deepEqual(parsePluginList(undefined), []);
  });

  it('builds the implemented plugins and reports the rest as not implemented yet', () => {
    const lines: string[] = [];
    // A few default plugins (whatever else is built), named out of order: the chain keeps upstream's order.
    const kept = [
      'ServiceAccount',
      'DefaultStorageClass',
      'DefaultTolerationSeconds',
      'Priority',
      'TaintNodesByCondition',
      'NamespaceLifecycle',
    ];
    const disablePlugins = [...DEFAULT_ON_PLUGINS].filter((n) => !kept.includes(n));
    const chain = buildAdmissionChain(
      { enablePlugins: ['NodeRestriction', 'AlwaysPullImages'], disablePlugins },
      deps,
      memoryLogger(lines),
    );
    assert.deepEqual(chain.mutatingNames, [
      'NamespaceLifecycle',
      'ServiceAccount',
      'NodeRestriction',
      'TaintNodesByCondition',
      'Priority',
      'DefaultTolerationSeconds',
      'DefaultStorageClass',
    ]);
    assert.deepEqual(chain.validatingNames, ['ServiceAccount', 'Priority']);
    assert.equal(
      lines[0],
      'Loaded 7 mutating admission controller(s) successfully in the following order: NamespaceLifecycle,ServiceAccount,NodeRestriction,TaintNodesByCondition,Priority,DefaultTolerationSeconds,DefaultStorageClass.',
    );
    assert.equal(
      lines[1],
      'Loaded 2 validating admission controller(s) successfully in the following order: ServiceAccount,Priority.',
    );
    assert.match(lines[2] ?? '', /not implemented yet.*AlwaysPullImages/);
    const none = buildAdmissionChain({ disablePlugins: [...DEFAULT_ON_PLUGINS] }, deps);
    assert.deepEqual(none.plugins, []);
  });
});
