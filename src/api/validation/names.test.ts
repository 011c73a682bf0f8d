import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isWildcardDNS1123Subdomain,
  regexError,
} from './names.js';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QNAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const label = (n: number) => 'a'.repeat(n);
/** A subdomain of n characters (n from 193 on): three 63-character labels and a last one of the rest. */
const subdomain = (n: number) => `${['a', 'b', 'c'].map((c) => c.repeat(63)).join('.')}.${'d'.repeat(n - 192)}`;

describe('regexError', () => {
  it('writes examples with upstream spacing', () => {
    assert.equal(regexError('m', 'f'), "m (regex used for validation is 'f')");
    assert.equal(regexError('m', 'f', 'a', 'b'), "m (e.g. 'a',  or 'b', regex used for validation is 'f')");
  });
});

describe('DNS-1123 subdomain', () => {
  it('accepts up to 253 characters and refuses 254', () => {
    assert.equal(subdomain(253).length, 253);
    assert.deepEqual(isDNS1123Subdomain(subdomain(253)), []);
    assert.equal(subdomain(254).length, 254);
    assert.deepEqual(isDNS1123Subdomain(subdomain(254)), ['must be no more than 253 characters']);
  });

  it('refuses upper case and leading or trailing punctuation with upstream message', () => {
    for (const bad of ['Foo', '-a', 'a-', 'a..b', '.a', 'a_b', ''])
      assert.deepEqual(isDNS1123Subdomain(bad), [SUBDOMAIN_MSG], bad);
    for (const good of ['a', 'a.b', 'a-b.c-d', '0', 'example.com'])
      assert.deepEqual(isDNS1123Subdomain(good), [], good);
  });
});

describe('DNS-1123 label', () => {
  it('accepts up to 63 characters and refuses 64', () => {
    assert.deepEqual(isDNS1123Label(label(63)), []);
    assert.deepEqual(isDNS1123Label(label(64)), ['must be no more than 63 characters']);
  });

  it('says dots are the problem when the value is a subdomain', () => {
    assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
    assert.deepEqual(isDNS1123Label('A'), [LABEL_MSG]);
  });
});

describe('DNS-1035 label', () => {
  it('must start with a letter', () => {
    assert.deepEqual(isDNS1035Label('1abc'), [DNS1035_MSG]);
    assert.deepEqual(isDNS1035Label('abc-1'), []);
    assert.deepEqual(isDNS1035Label(label(63)), []);
    assert.deepEqual(isDNS1035Label(label(64)), ['must be no more than 63 characters']);
  });
});

describe('qualified names', () => {
  it('accepts prefixed and plain names, the name part up to 63 characters', () => {
    for (const good of ['a', 'A_b.c-D', 'example.com/MyName', `x/${label(63)}`])
      assert.deepEqual(isQualifiedName(good), [], good);
    assert.deepEqual(isQualifiedName(label(64)), ['name part must be no more than 63 characters']);
  });

  it('reports each part in upstream words', () => {
    assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', QNAME_MSG]);
    assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']);
    assert.deepEqual(isQualifiedName('Ex.com/a'), [`prefix part ${SUBDOMAIN_MSG}`]);
    assert.deepEqual(isQualifiedName('-a'), [QNAME_MSG]);
    assert.deepEqual(isQualifiedName(`${subdomain(254)}/a`), ['prefix part must be no more than 253 characters']);
    assert.deepEqual(isQualifiedName(`x/${label(64)}`), ['name part must be no more than 63 characters']);
    assert.deepEqual(isQualifiedName('x/é'), [QNAME_MSG]);
    assert.deepEqual(isQualifiedName('a/b/c'), [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });
});

describe('label values', () => {
  it('may be empty and up to 63 characters', () => {
    assert.deepEqual(isValidLabelValue(''), []);
    assert.deepEqual(isValidLabelValue(label(63)), []);
    assert.deepEqual(isValidLabelValue(label(64)), ['must be no more than 63 characters']);
  });

  it('counts UTF-8 bytes as Go does', () => {
    assert.equal(isValidLabelValue('é'.repeat(32)).includes('must be no more than 63 characters'), true);
  });

  it('answers a list of its own each time, which a caller may add to', () => {
    const first = isValidLabelValue('ok');
    first.push('added');
    assert.deepEqual(isValidLabelValue('ok'), []);
  });

  it('refuses bad characters', () => {
    assert.equal(isValidLabelValue('a b').length, 1);
    assert.equal(isValidLabelValue('-a').length, 1);
  });
});

describe('wildcard subdomains', () => {
  it('need a leading *.', () => {
    assert.deepEqual(isWildcardDNS1123Subdomain('*.example.com'), []);
    assert.equal(isWildcardDNS1123Subdomain('example.com').length, 1);
  });
});
