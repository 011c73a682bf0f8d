/**
 * node:assert/strict for this project's tests, with one change: `assert.ok(value)` without a message says what the
 * value was instead of quoting the source of the call.
 *
 * To quote the call, Node 20 reads the test's source file at the line and column of the call site. Under tsx those
 * are positions in the compiled code, which tsx emits on a single line, so Node searches the TypeScript source by
 * parsing it again and again from the top (tsx issue #548): the first failure of a call site late in a large file
 * blocks the event loop for seconds to a minute. In a test that polls until a condition holds, with a control plane
 * running in the same process, that stalls every component — watches, kubelets' leases, the scheduler — and turns
 * a wait of a second into a timeout. biome.json refuses node:assert in favour of this module.
 */
// biome-ignore lint/style/noRestrictedImports: this is the one place that wraps it
import strict from 'node:assert/strict';
import { inspect } from 'node:util';

function ok(value: unknown, message?: string | Error): asserts value {
  if (value) return;
  if (message instanceof Error) throw message;
  throw new strict.AssertionError({
    message: message ?? `expected a truthy value, got ${inspect(value, { depth: 2, breakLength: Infinity })}`,
    actual: value,
    expected: true,
    operator: '==',
    stackStartFn: ok,
  });
}

const assert: typeof strict = Object.assign(ok, strict, { ok }) as unknown as typeof strict;
assert.strict = assert;

export default assert;
