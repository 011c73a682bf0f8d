import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { CelAuthorizer, CelCompileError, CelEvaluationError, compileCel, openAPISchemaForCel } from './index.js';

const run = (expression: string, activation: Record<string, unknown> = {}, names: string[] = ['object']) =>
  compileCel(
    expression,
    names.map((name) => ({ name })),
  ).evaluate(activation);

function compileError(expression: string, names: string[] = []): string {
  try {
    compileCel(
      expression,
      names.map((name) => ({ name })),
    );
  } catch (err) {
    assert.ok(err instanceof CelCompileError);
    return err.compilationFailed;
  }
  assert.fail(`${expression} compiled`);
}

describe('CEL environment: compiling', () => {
  it('words compile errors as upstream, with the position and a caret', () => {
    assert.equal(
      compileError('1 + x'),
      "compilation failed: ERROR: <input>:1:5: undeclared reference to 'x' (in container '')\n | 1 + x\n | ....^",
    );
    assert.match(compileError('1 + "a"'), /found no matching overload for '_\+_' applied to '\(int, string\)'/);
    // At the operator, as cel-go places a binary operator's call: the last one outside brackets and strings.
    assert.match(
      compileError('size("a+b") + (1 + 2) > "x"'),
      /^compilation failed: ERROR: <input>:1:23: found no matching overload for '_>_' applied to '\(int, string\)'\n \| .*\n \| \.{22}\^$/,
    );
    assert.match(compileError('1 <= 2 + "a"'), /ERROR: <input>:1:8: found no matching overload for '_\+_'/);
    assert.match(
      compileError('"a".startsWith(1)'),
      /found no matching overload for 'startsWith' applied to 'string.\(int\)'/,
    );
    assert.match(compileError('object.a +', ['object']), /^compilation failed: ERROR: <input>:1:11: Syntax error: /);
    assert.match(
      compileError('"abc".matches("(")'),
      /ERROR: <input>:1:15: invalid regular expression: error parsing regexp: missing closing \)/,
    );
  });

  it('checks literals as upstream validators do: homogeneous outside format(), durations and timestamps', () => {
    assert.equal(
      compileError("[1, 'a']"),
      "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a']\n | ....^",
    );
    assert.match(compileError("{'a': 1, 'b': 'c'}"), /<input>:1:15: expected type 'int' but found 'string'/);
    assert.match(compileError("[[1], ['a']]"), /<input>:1:7: expected type 'list\(int\)' but found 'list\(string\)'/);
    assert.match(
      compileError('[1, 2].map(x, [x, "a"]).size() == 2'),
      /<input>:1:19: expected type 'int' but found 'string'/,
    );
    assert.deepEqual(run('[[1], []]'), [[1], []], 'an empty list fits any element type');
    // format() takes mixed arguments, at any depth of its argument list (strings library v1 and later).
    assert.equal(run("'%s=%d'.format(['a', 1])"), 'a=1');
    assert.equal(run("'%s'.format([[1, 'a']])"), '[1, a]');
    assert.equal(
      compileError("duration('1x') > duration('1s')"),
      "compilation failed: ERROR: <input>:1:10: invalid duration argument\n | duration('1x') > duration('1s')\n | .........^",
    );
    assert.match(compileError("timestamp('tomorrow') > timestamp(0)"), /<input>:1:11: invalid timestamp argument/);
    assert.equal(run("duration('1s') < duration('2s')"), true);
  });

  it('names types and places calls and indexes as cel-go does', () => {
    assert.match(
      compileError("string('a,b'.split(','))"),
      /<input>:1:7: found no matching overload for 'string' applied to '\(list\(string\)\)'/,
    );
    assert.match(
      compileError('size(1) == 3'),
      /<input>:1:5: found no matching overload for 'size' applied to '\(int\)'/,
    );
    assert.match(
      compileError('1.size() == 3'),
      /<input>:1:7: found no matching overload for 'size' applied to 'int.\(\)'/,
    );
    assert.match(
      compileError("[1, 2]['x']"),
      /<input>:1:7: found no matching overload for '_\[_\]' applied to '\(list\(int\), string\)'/,
    );
    assert.match(compileError('[optional.of(1)] == [1]'), /'\(list\(optional_type\(int\)\), list\(int\)\)'/);
  });

  it('reports the checked output type', () => {
    assert.equal(compileCel('1 < 2').outputType, 'bool');
    assert.equal(compileCel('"a" + "b"').outputType, 'string');
    assert.equal(compileCel('object.x', [{ name: 'object' }]).outputType, 'dyn');
  });
});

describe('CEL environment: Kubernetes values', () => {
  const schema = openAPISchemaForCel({
    type: 'object',
    properties: {
      replicas: { type: 'integer' },
      ratio: { type: 'number' },
      port: { 'x-kubernetes-int-or-string': true },
      sizes: { type: 'array', items: { type: 'number' } },
      limits: { type: 'object', additionalProperties: { type: 'integer' } },
    },
  });
  const typed = (expression: string, self: unknown) =>
    compileCel(expression, [{ name: 'self', schema }]).evaluate({ self });

  it('keeps integers integers and numbers doubles, by the schema', () => {
    assert.equal(typed('self.replicas + 1', { replicas: 2 }), 3);
    assert.equal(typed('type(self.replicas) == int', { replicas: 2 }), true);
    assert.equal(
      typed('type(self.ratio) == double', { ratio: 2 }),
      true,
      'a whole number in a number field is a double',
    );
    assert.equal(typed('self.ratio * 2.0', { ratio: 1.5 }), 3);
    assert.equal(typed('type(self.port) == int && self.port > 80', { port: 8080 }), true);
    assert.equal(typed('type(self.port) == string', { port: 'http' }), true);
    assert.equal(typed('self.sizes.all(s, type(s) == double)', { sizes: [1, 2.5] }), true);
    assert.equal(typed('self.limits["cpu"] / 2', { limits: { cpu: 5 } }), 2, 'integer division');
  });

  it('without a schema, whole numbers are ints and others doubles', () => {
    assert.equal(run('type(object.a) == int && type(object.b) == double', { object: { a: 1, b: 1.5 } }), true);
  });

  it('gives results back as JSON', () => {
    assert.deepEqual(run('[1, 2].map(x, x * 2)'), [2, 4]);
    assert.deepEqual(run('{"a": 1}'), { a: 1 });
    assert.equal(run('object.?spec.?missing.orValue("none")', { object: { spec: {} } }), 'none');
    assert.equal(run('has(object.spec.x)', { object: { spec: {} } }), false);
  });

  it('reads a map with a key named constructor like any other', () => {
    const object = { labels: { constructor: 'x', app: 'web' } };
    assert.equal(run("object.labels.constructor == 'x' && object.labels.app == 'web'", { object }), true);
    assert.equal(run("has(object.labels.constructor) && 'constructor' in object.labels", { object }), true);
    assert.equal(run('size(object.labels)', { object }), 2);
    assert.deepEqual(run('object.labels', { object }), { constructor: 'x', app: 'web' });
    // Such maps compare and print as maps.
    const other = { labels: { constructor: 'y', app: 'web' } };
    assert.equal(run('object.labels == other.labels', { object, other }, ['object', 'other']), false);
    assert.equal(run('object.labels == object.labels', { object }), true);
    assert.equal(run('[object.labels].exists(m, m == other.labels)', { object, other }, ['object', 'other']), false);
    assert.equal(run("'%s'.format([object.labels])", { object }), '{app: web, constructor: x}');
    // So is a map with a key named __proto__ (a ConfigMap key may be).
    const data = JSON.parse('{"data": {"__proto__": "a", "b": "c"}}');
    assert.equal(run("size(object.data) == 2 && object.data['__proto__'] == 'a'", { object: data }), true);
  });

  it('fails evaluations with upstream words', () => {
    assert.throws(() => run('object.spec.x', { object: { spec: {} } }), new CelEvaluationError('no such key: x'));
    assert.throws(() => run('1 / 0'), /division by zero/);
    assert.throws(() => run('[1, 2, 3][5] == 1'), new CelEvaluationError("index '5' out of range in list size '3'"));
    assert.throws(() => run('[1, 2, 3][-1] == 1'), new CelEvaluationError("index '-1' out of range in list size '3'"));
  });
});

describe('CEL environment: Kubernetes libraries', () => {
  const cases: [string, unknown][] = [
    ['"a-b-c".replace("-", "+") + "a-b-c".replace("-", "+", 1) + "abc".charAt(1)', 'a+b+ca+b-cb'],
    ['"%s has %d, %.2f, %x".format([dyn("x"), dyn(5), dyn(3.14159), dyn(255)])', 'x has 5, 3.14, ff'],
    ['strings.quote("a\\"b")', '"a\\"b"'],
    ['"AbC".lowerAscii() + " x ".trim() + ["a", "b"].join("-")', 'abcxa-b'],
    ['[1, 2, 3].isSorted() && ![3, 1].isSorted()', true],
    ['[3, 1, 2].sum() * 100 + [3, 1, 2].max() * 10 + [3, 1, 2].min()', 631],
    ['["a", "b", "a"].indexOf("a") * 10 + ["a", "b", "a"].lastIndexOf("a")', 2],
    ['"ABC".matches("(?i)^a")', true],
    [
      '"a1b22".find("[0-9]+") + "|" + "a1b22c333".findAll("[0-9]+").join(",") + "|" + "a1b22".findAll("[0-9]+", 1)[0]',
      '1|1,22,333|1',
    ],
    [
      'url("https://example.com:8080/a/b?x=1&x=2").getHostname() + url("https://example.com:8080/a").getPort()',
      'example.com8080',
    ],
    ['url("https://example.com/p?x=1&x=2").getQuery()["x"]', ['1', '2']],
    ['isURL("/just/a/path") && !isURL("no scheme")', true],
    ['quantity("1Gi").isGreaterThan(quantity("1000Mi")) && quantity("500m").asApproximateFloat() == 0.5', true],
    ['quantity("2").add(3).sub(quantity("1")).asInteger()', 4],
    ['isQuantity("1.5Gi") && !isQuantity("1x") && !quantity("1.5").isInteger()', true],
    ['semver("1.2.3").isLessThan(semver("1.10.0")) && semver("1.0.0-alpha").compareTo(semver("1.0.0")) == -1', true],
    ['semver("v01.2", true).major() * 100 + semver("1.2", true).minor() * 10 + semver("1.2.3").patch()', 123],
    [
      'isSemver("1.0.0") && !isSemver("v1.0.0") && isSemver("v1.0", true) && semver("1.0.0+a") == semver("1.0.0")',
      true,
    ],
    [
      'ip("10.0.0.1").family() == 4 && cidr("10.0.0.0/8").containsIP("10.1.2.3") && !cidr("10.0.0.0/8").containsIP(ip("11.0.0.1"))',
      true,
    ],
    [
      'string(cidr("10.1.0.0/8").masked()) + " " + string(ip("::1").isLoopback()) + " " + string(cidr("10.0.0.0/8").prefixLength())',
      '10.0.0.0/8 true 8',
    ],
    [
      'isIP("010.0.0.1") || !ip.isCanonical("2001:db8::1") || cidr("10.0.0.0/8").containsCIDR("10.1.0.0/16") == false',
      false,
    ],
    ['format.dns1123Label().validate("ok").hasValue() || !format.dns1123Label().validate("Not_OK").hasValue()', false],
    ['format.named("uuid").hasValue() && !format.named("nope").hasValue()', true],
    ['sets.contains([1, 2, 3], [2]) && sets.intersects([1], [1, 4]) && !sets.equivalent([1], [2])', true],
    ['optional.of(1).orValue(2) + optional.none().orValue(3)', 4],
    ['[1, 2, 3].exists_one(x, x == 2) && [1, 2].all(x, x > 0) && [1, 2].filter(x, x > 1) == [2]', true],
    ['cel.bind(x, 2, x * x)', 4],
    ['1 < 1.5 && 2.0 > 1', true],
  ];
  for (const [expression, want] of cases) {
    it(expression, () => assert.deepEqual(run(expression), want));
  }

  it('matches a pattern that backtracking engines take exponential time over, at once (RE2)', () => {
    const input = `${'a'.repeat(5000)}!`;
    assert.equal(run('object.s.matches("^(a+)+$")', { object: { s: input } }), false);
  });

  it('asks the authorizer', () => {
    const asked: string[] = [];
    const authorizer = new CelAuthorizer(
      { name: 'jane', groups: ['system:authenticated'] },
      (q) => {
        asked.push(
          `${q.user.name} ${q.verb} ${q.apiGroup}/${q.resource}/${q.subresource} ${q.namespace}/${q.name} ${q.path}`,
        );
        return { decision: q.verb === 'get' ? 'allow' : 'no-opinion', reason: 'because' };
      },
      { group: 'apps', version: 'v1', resource: 'deployments', subresource: '', namespace: 'ns', name: 'd' },
    );
    const vars = [{ name: 'authorizer', type: 'kubernetes.authorization.Authorizer', native: true }];
    const ask = (e: string) => compileCel(e, vars).evaluate({ authorizer });
    assert.equal(
      ask(
        'authorizer.group("apps").resource("deployments").subresource("scale").namespace("ns").name("d").check("get").allowed()',
      ),
      true,
    );
    assert.equal(ask('authorizer.path("/healthz").check("post").allowed()'), false);
    assert.equal(ask('authorizer.path("/healthz").check("get").reason()'), 'because');
    assert.equal(
      ask('authorizer.serviceAccount("kube-system", "sa").group("").resource("pods").check("list").errored()'),
      false,
    );
    assert.equal(ask('authorizer.requestResource.check("update").allowed()'), false);
    assert.deepEqual(asked, [
      'jane get apps/deployments/scale ns/d ',
      'jane post // / /healthz',
      'jane get // / /healthz',
      'system:serviceaccount:kube-system:sa list /pods/ / ',
      'jane update apps/deployments/ ns/d ',
    ]);
  });
});

describe('CEL environment: cost bound', () => {
  it('cancels an evaluation that passes the limit, with upstream words', () => {
    const object = { l: Array.from({ length: 200 }, (_, i) => i) };
    assert.throws(
      () => run('object.l.map(x, object.l.map(y, object.l.map(z, x + y + z))).size() > 0', { object }),
      new CelEvaluationError('operation cancelled: actual cost limit exceeded'),
    );
  });

  it('lets work under the limit through, and counts each evaluation afresh', () => {
    const c = compileCel('object.l.all(x, object.l.all(y, x + y >= 0))', [{ name: 'object' }], { costLimit: 50_000 });
    const object = { l: Array.from({ length: 200 }, (_, i) => i) };
    assert.equal(c.evaluate({ object }), true);
    assert.equal(c.evaluate({ object }), true);
    const tight = compileCel('object.l.all(x, object.l.all(y, x + y >= 0))', [{ name: 'object' }], { costLimit: 1000 });
    assert.throws(() => tight.evaluate({ object }), /actual cost limit exceeded/);
  });
});
