import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import {
  maskTrailingDash,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validatePathSegmentName,
} from './name-validators.js';

describe('generateName prefixes', () => {
  it('allow a trailing dash, masked as upstream does', () => {
    assert.equal(maskTrailingDash('web-'), 'wea');
    assert.equal(maskTrailingDash('-'), '-');
    assert.equal(maskTrailingDash('web'), 'web');
    assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
    assert.deepEqual(nameIsDNSLabel('web-', true), []);
    assert.deepEqual(nameIsDNS1035Label('web-', true), []);
    assert.equal(nameIsDNSSubdomain('web-', false).length, 1);
  });

  it('still refuse what no suffix can fix', () => {
    assert.equal(nameIsDNSSubdomain('Web-', true).length, 1);
    assert.equal(nameIsDNSLabel('é-', true).length, 1);
  });
});

describe('path-segment names', () => {
  it('refuse . and .. and names with / or %', () => {
    assert.deepEqual(validatePathSegmentName('.', false), ["may not be '.'"]);
    assert.deepEqual(validatePathSegmentName('..', false), ["may not be '..'"]);
    assert.deepEqual(validatePathSegmentName('a/b', false), ["may not contain '/'"]);
    assert.deepEqual(validatePathSegmentName('a%b/', false), ["may not contain '/'", "may not contain '%'"]);
    assert.deepEqual(validatePathSegmentName('Any.Name_1', false), []);
  });

  it('allow . and .. as prefixes', () => {
    assert.deepEqual(validatePathSegmentName('..', true), []);
    assert.deepEqual(validatePathSegmentName('a/', true), ["may not contain '/'"]);
  });
});
