import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { CelCompileError, compileCel, typeCheckCel } from '../index.js';

const run = (expression: string, object: unknown = {}) =>
  compileCel(expression, [{ name: 'object' }]).evaluate({ object });

function failure(expression: string): string {
  try {
    run(expression);
  } catch (err) {
    return err instanceof CelCompileError ? err.compilationFailed : (err as Error).message;
  }
  return 'no error';
}

describe('two-variable comprehensions', () => {
  // The examples of cel-go's ext.TwoVarComprehensions.
  const cases: [string, unknown][] = [
    ['[1, 2, 3].all(i, j, i < j)', true],
    ["{'hello': 'world', 'taco': 'taco'}.all(k, v, k != v)", false],
    ["{'h': ['hello', 'hi'], 'j': ['joke', 'jog']}.all(k, vals, vals.all(v, v.startsWith(k)))", true],
    ["{'greeting': 'hello', 'farewell': 'goodbye'}.exists(k, v, k.startsWith('good') || v.endsWith('bye'))", true],
    ['[1, 2, 4, 8, 16].exists(i, v, v == 1024 && i == 10)', false],
    ['[1, 2, 1, 3, 1, 4].existsOne(i, v, i == 1 || v == 1)', false],
    ['[1, 1, 2, 2, 3, 3].existsOne(i, v, i == 2 && v == 2)', true],
    ["{'i': 0, 'j': 1, 'k': 2}.exists_one(i, v, i == 'l' || v == 1)", true],
    ['[1, 2, 3].transformList(indexVar, valueVar, (indexVar * valueVar) + valueVar)', [1, 4, 9]],
    ['[1, 2, 3].transformList(indexVar, valueVar, indexVar % 2 == 0, (indexVar * valueVar) + valueVar)', [1, 9]],
    ["{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(k, _, k)", ['greeting', 'farewell']],
    ["{'greeting': 'hello', 'farewell': 'goodbye'}.transformList(_, v, v)", ['hello', 'goodbye']],
    ['[1, 2, 3].transformMap(indexVar, valueVar, (indexVar * valueVar) + valueVar)', { 0: 1, 1: 4, 2: 9 }],
    ['[1, 2, 3].transformMap(i, v, i % 2 == 0, v * 10)', { 0: 10, 2: 30 }],
    ["{'greeting': 'hello'}.transformMap(k, v, v + '!')", { greeting: 'hello!' }],
    ["{'greeting': 'hello'}.transformMapEntry(keyVar, valueVar, {valueVar: keyVar})", { hello: 'greeting' }],
    ['[1, 2, 3].transformMapEntry(i, v, i > 0, {string(v): i})', { 2: 1, 3: 2 }],
    // The one-variable forms are still there.
    ['[1, 2].all(x, x > 0) && {"a": 1}.exists(k, k == "a")', true],
  ];
  for (const [expression, want] of cases) it(expression, () => assert.deepEqual(run(expression), want));

  it('reads variables and their objects', () => {
    const object = { spec: { containers: [{ name: 'a' }, { name: 'b' }] } };
    assert.equal(run('object.spec.containers.all(i, c, c.name != "" && i < 2)', object), true);
    assert.deepEqual(run('object.spec.containers.transformMap(i, c, c.name)', object), { 0: 'a', 1: 'b' });
  });

  it('lets all and exists decide past an error, as && and || do; the others stop at it', () => {
    assert.equal(run('[0, 1].exists(i, v, 1 / v > 0)'), true);
    assert.equal(run('[0, 1].all(i, v, 1 / v < 0)'), false);
    assert.equal(failure('[0, 1].all(i, v, 1 / v > 0)'), 'division by zero');
    assert.equal(failure('[0, 1].existsOne(i, v, 1 / v > 0)'), 'division by zero');
    assert.equal(
      failure("{'greeting': 'aloha', 'farewell': 'aloha'}.transformMapEntry(k, v, {v: k})"),
      'insert failed: key aloha already exists',
    );
  });

  it("refuses what cel-go's macros refuse", () => {
    assert.equal(
      failure('[1, 2].all(i, i, true)'),
      'compilation failed: ERROR: <input>:1:15: duplicate variable name: i\n | [1, 2].all(i, i, true)\n | ..............^',
    );
    assert.match(failure('[1, 2].all(i, v.x, true)'), /argument must be a simple name/);
    assert.match(failure('[1, 2].all(i, __result__, true)'), /iteration variable overwrites accumulator variable/);
    assert.match(failure('[1].all(i, v, v)'), /found no matching overload for '_&&_' applied to '\(bool, int\)'/);
  });

  it('types the variables for the type checker', () => {
    const schema = {
      type: 'object' as const,
      propertyNames: ['items'],
      property: (name: string) =>
        name === 'items'
          ? {
              type: 'array' as const,
              items: {
                type: 'object' as const,
                propertyNames: ['name'],
                property: (n: string) => (n === 'name' ? { type: 'string' as const } : undefined),
              },
            }
          : undefined,
    };
    const vars = [{ name: 'object', schema }];
    assert.equal(
      typeCheckCel('object.items.all(i, v, v.name != "" && i >= 0)', vars, 'comprehensions test'),
      undefined,
    );
    assert.match(
      typeCheckCel('object.items.all(i, v, v.nme != "")', vars, 'comprehensions test') ?? '',
      /undefined field 'nme'/,
    );
  });

  it('counts each element against the cost budget', () => {
    const program = compileCel('object.all(i, v, v >= 0)', [{ name: 'object' }], { costLimit: 50 });
    assert.equal(program.evaluate({ object: Array.from({ length: 40 }, (_, i) => i) }), true);
    assert.throws(
      () => program.evaluate({ object: Array.from({ length: 60 }, (_, i) => i) }),
      /operation cancelled: actual cost limit exceeded/,
    );
  });
});
