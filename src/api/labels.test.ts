import { describe, it } from 'node:test';
import assert from '../testing/assert.js';
import { path } from './field-errors.js';
import { LabelSelector, LabelSelectorError, type LabelSelectorOperator, newRequirement } from './labels.js';

const QUALIFIED_NAME_RULE =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

function parseError(text: string): string {
  try {
    LabelSelector.parse(text);
  } catch (err) {
    assert.ok(err instanceof LabelSelectorError);
    return err.message;
  }
  assert.fail(`${JSON.stringify(text)} parsed`);
}

describe('LabelSelector.parse', () => {
  it('reads every form and prints it back canonically', () => {
    for (const text of [
      'x=a,y=b,z=c',
      '',
      'x!=a,y=b',
      'x=',
      'x= ',
      'x=,z= ',
      'x= ,z= ',
      '!x',
      'x>1',
      'x>1,z<5',
      'x==a',
    ]) {
      assert.equal(LabelSelector.parse(text).toString(), text.replaceAll(' ', ''), text);
    }
    assert.equal(LabelSelector.parse('x in (foo,,baz),y,z notin ()').toString(), 'x in (,baz,foo),y,z notin ()');
    assert.equal(LabelSelector.parse('  env in (prod, qa) , !canary ').toString(), '!canary,env in (prod,qa)');
    assert.equal(LabelSelector.parse('example.com/tier notin (b,a,a)').toString(), 'example.com/tier notin (a,b)');
  });

  it('sorts requirements by key so that equal selectors print the same', () => {
    assert.equal(LabelSelector.parse('x=a,a=x').toString(), LabelSelector.parse('a=x,x=a').toString());
  });

  it('gives the requirements with operators and values', () => {
    assert.deepEqual(LabelSelector.parse('b in (y,x),a,!c,d>3').requirements, [
      { key: 'a', operator: 'exists', values: [] },
      { key: 'b', operator: 'in', values: ['x', 'y'] },
      { key: 'c', operator: '!', values: [] },
      { key: 'd', operator: 'gt', values: ['3'] },
    ]);
  });

  it('treats in and notin as plain words where a value or key is expected', () => {
    assert.ok(LabelSelector.parse('notin=in').matches({ notin: 'in' }));
    assert.equal(LabelSelector.parse('in in (in)').toString(), 'in in (in)');
  });

  it('reports syntax errors with upstream messages', () => {
    assert.equal(parseError('x==a==b'), "found '==', expected: ',' or 'end of string'");
    assert.equal(parseError('!x=a'), "found '=', expected: ',' or 'end of string'");
    assert.equal(parseError('x,'), "found '', expected: identifier after ','");
    assert.equal(parseError(',x'), "found ',', expected: !, identifier, or 'end of string'");
    assert.equal(parseError('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
    assert.equal(parseError('x in a'), "unable to parse requirement: found 'a' expected: '('");
    assert.equal(parseError('x in (a'), "unable to parse requirement: found '', expected: ',' or ')'");
    assert.equal(parseError('x in (a b)'), "unable to parse requirement: found 'b', expected: ',' or ')'");
    assert.equal(parseError('x in (a,b,,)'), "unable to parse requirement: found ')', expected: ',', or identifier");
    assert.equal(parseError('x in ='), "unable to parse requirement: found '=' expected: '('");
    assert.equal(parseError('x in (='), "unable to parse requirement: found '=', expected: ',', ')' or identifier");
    assert.equal(parseError('x=('), "unable to parse requirement: found '(', expected: identifier");
    assert.equal(parseError('!'), "unable to parse requirement: found '', expected: identifier");
  });

  it('reports invalid keys and values as field errors, with <nil> for the unnamed query parameter', () => {
    assert.equal(parseError('-a'), `unable to parse requirement: <nil>: Invalid value: "-a": ${QUALIFIED_NAME_RULE}`);
    assert.equal(
      parseError(`x=${'a'.repeat(64)}`),
      `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 characters`,
    );
    assert.equal(
      parseError('x<a'),
      `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
    );
    assert.ok(LabelSelector.parse(`x=${'a'.repeat(63)}`).matches({ x: 'a'.repeat(63) }));
  });

  it('names the given path in key errors', () => {
    assert.throws(
      () => LabelSelector.parse('-a', path('spec', 'selector')),
      (err: LabelSelectorError) =>
        err.message.startsWith('unable to parse requirement: spec.selector: Invalid value: "-a"'),
    );
  });
});

describe('matching', () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x==y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x in (a,b)', { x: 'b' }, true],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'c' }, true],
    ['x!=y', {}, true],
    ['x!=', {}, true],
    ['x notin ()', {}, true],
    ['x notin ()', { x: '' }, false],
    ['x=', { x: '' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['x>1', {}, false],
    ['x>1', { x: 'abc' }, false],
    ['x in (a,b)', {}, false],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x=', {}, false],
    ['constructor', {}, false],
  ];
  for (const [selector, labels, want] of cases) {
    it(`${JSON.stringify(selector)} ${want ? 'matches' : 'does not match'} ${JSON.stringify(labels)}`, () => {
      assert.equal(LabelSelector.parse(selector).matches(labels), want);
    });
  }

  it('compares gt and lt as 64-bit integers', () => {
    assert.ok(LabelSelector.parse('x>9007199254740992').matches({ x: '9007199254740993' }));
    assert.ok(!LabelSelector.parse('x>1').matches({ x: '9223372036854775808' }));
  });
});

describe('everything, nothing and metav1 LabelSelector objects', () => {
  it('a missing selector selects nothing, an empty one everything', () => {
    const nothing = LabelSelector.fromObject(null);
    assert.equal(nothing.matches({ a: 'b' }), false);
    assert.equal(nothing.isEmpty(), false);
    assert.equal(nothing.selectable, false);
    assert.equal(nothing.toString(), '');
    const everything = LabelSelector.fromObject({});
    assert.equal(everything.matches({}), true);
    assert.equal(everything.isEmpty(), true);
    assert.equal(LabelSelector.fromObject({ matchLabels: {}, matchExpressions: [] }).isEmpty(), true);
    assert.equal(
      LabelSelector.nothing()
        .add(newRequirement('a', 'exists', []))
        .matches({ a: '' }),
      false,
    );
  });

  it('converts matchLabels and matchExpressions', () => {
    const s = LabelSelector.fromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['fe', 'be'] },
        { key: 'canary', operator: 'DoesNotExist' },
        { key: 'env', operator: 'NotIn', values: ['dev'] },
        { key: 'zone', operator: 'Exists' },
      ],
    });
    assert.equal(s.toString(), 'app=web,!canary,env notin (dev),tier in (be,fe),zone');
    assert.ok(s.matches({ app: 'web', tier: 'fe', zone: 'a' }));
    assert.ok(!s.matches({ app: 'web', tier: 'fe', zone: 'a', canary: 'true' }));
  });

  it('refuses bad objects with upstream messages', () => {
    assert.throws(() => LabelSelector.fromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }), {
      message: '"Gt" is not a valid label selector operator',
    });
    assert.throws(() => LabelSelector.fromObject({ matchExpressions: [{ key: 'a', operator: 'In' }] }), {
      message: "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    });
    assert.throws(
      () => LabelSelector.fromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
      {
        message: 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist',
      },
    );
    assert.throws(() => LabelSelector.fromObject({ matchLabels: { '-a': 'b c' } }), {
      message: `[key: Invalid value: "-a": ${QUALIFIED_NAME_RULE}, values[0][-a]: Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]`,
    });
  });

  it('checks requirements built by hand', () => {
    assert.throws(() => newRequirement('a', '=', ['x', 'y']), {
      message: 'values: Invalid value: []string{"x", "y"}: exact-match compatibility requires one single value',
    });
    assert.throws(() => newRequirement('a', 'bogus' as LabelSelectorOperator, []), {
      message:
        'operator: Unsupported value: "bogus": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"',
    });
    assert.throws(() => newRequirement('a', 'gt', ['1', '2']), {
      message: `values: Invalid value: []string{"1", "2"}: for 'Gt', 'Lt' operators, exactly one value is required`,
    });
  });

  it('builds selectors from sets, optionally validated', () => {
    assert.equal(LabelSelector.fromSet({ b: '2', a: '1' }).toString(), 'a=1,b=2');
    assert.equal(LabelSelector.fromSet(undefined).isEmpty(), true);
    assert.equal(LabelSelector.fromSet({ 'a b': 'c' }).toString(), 'a b=c');
    assert.throws(() => LabelSelector.fromSet({ 'a b': 'c' }, { validate: true }), LabelSelectorError);
  });
});

describe('what a selector requires', () => {
  const s = LabelSelector.parse('app=web,tier in (fe),env in (a,b),!canary,x!=y,zone');

  it('answers exact matches as upstream RequiresExactMatch does', () => {
    assert.equal(s.requiresExactMatch('app'), 'web');
    assert.equal(s.requiresExactMatch('tier'), 'fe');
    assert.equal(s.requiresExactMatch('env'), undefined);
    assert.equal(s.requiresExactMatch('x'), undefined);
    assert.equal(s.requiresExactMatch('missing'), undefined);
  });

  it('lists pinned labels and required keys for indexing', () => {
    assert.deepEqual(
      [...s.exactMatches()],
      [
        ['app', 'web'],
        ['tier', 'fe'],
      ],
    );
    assert.deepEqual(s.requiredKeys().sort(), ['app', 'env', 'tier', 'zone']);
  });
});
