import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { calculateNames } from './naming.js';
import type { CRDNames, CustomResourceDefinition } from './types.js';

function crd(names: CRDNames, accepted?: CRDNames): CustomResourceDefinition {
  return {
    metadata: { name: `${names.plural}.example.com` },
    spec: { group: 'example.com', names },
    ...(accepted ? { status: { acceptedNames: accepted } } : {}),
  };
}

const WIDGET = { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] };

describe('CRD naming', () => {
  it('accepts fresh names and moves Established to Installing', () => {
    const r = calculateNames(crd(WIDGET), []);
    assert.deepEqual(r.acceptedNames, WIDGET);
    assert.deepEqual(r.namesAccepted, {
      type: 'NamesAccepted',
      status: 'True',
      reason: 'NoConflicts',
      message: 'no conflicts found',
    });
    assert.deepEqual(r.established, {
      type: 'Established',
      status: 'False',
      reason: 'Installing',
      message: 'the initial names have been accepted',
    });
  });

  it('keeps names taken by another CRD of the group out, and says which', () => {
    const other = crd(
      { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList', shortNames: ['wd', 'g'] },
      {
        plural: 'gadgets',
        singular: 'gadget',
        kind: 'Gadget',
        listKind: 'GadgetList',
        shortNames: ['wd', 'g'],
      },
    );
    const r = calculateNames(crd(WIDGET), [other]);
    assert.equal(r.namesAccepted.status, 'False');
    assert.equal(r.namesAccepted.reason, 'ShortNamesConflict');
    assert.equal(r.namesAccepted.message, '"wd" is already in use');
    assert.equal(r.acceptedNames.shortNames, undefined);
    assert.equal(r.acceptedNames.plural, 'widgets');
    assert.deepEqual(r.established, {
      type: 'Established',
      status: 'False',
      reason: 'NotAccepted',
      message: 'not all names are accepted',
    });
  });

  it('lets a CRD keep the names it was accepted with', () => {
    const self = crd({ ...WIDGET, shortNames: ['wd', 'w'] }, WIDGET);
    const other = crd({ plural: 'ws', kind: 'W' }, { plural: 'ws', singular: 'w', kind: 'W', listKind: 'WList' });
    const r = calculateNames(self, [other]);
    assert.equal(r.namesAccepted.reason, 'ShortNamesConflict');
    assert.equal(r.namesAccepted.message, '"w" is already in use');
    assert.deepEqual(r.acceptedNames.shortNames, ['wd']);
  });
});
