/** Levels, versions and the policy a namespace's labels ask for (upstream's api/helpers_test.go cases). */
import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import {
  LATEST,
  type LevelVersion,
  levelVersionString,
  minorVersion,
  olderThan,
  type Policy,
  parseLevel,
  parseVersion,
  policyToEvaluate,
} from './levels.js';

const privileged: LevelVersion = { level: 'privileged', version: LATEST };
const PRIVILEGED: Policy = { enforce: privileged, audit: privileged, warn: privileged };
const lv = (level: LevelVersion['level'], minor?: number): LevelVersion => ({
  level,
  version: minor === undefined ? LATEST : minorVersion(minor),
});

function labels(...kvs: string[]): Record<string, string> {
  const out: Record<string, string> = { 'other-label': 'foo-bar' };
  for (let i = 0; i < kvs.length; i += 2) out[`pod-security.kubernetes.io/${kvs[i]}`] = kvs[i + 1] as string;
  return out;
}

describe('parseLevel and parseVersion', () => {
  it('accept upstream forms only', () => {
    assert.equal(parseLevel('baseline'), 'baseline');
    assert.equal(parseLevel('Baseline'), undefined);
    assert.deepEqual(parseVersion('latest'), LATEST);
    assert.deepEqual(parseVersion('v1.0'), minorVersion(0));
    assert.deepEqual(parseVersion('v1.33'), minorVersion(33));
    for (const bad of ['v1.01', '1.30', 'v2.0', 'v1.', 'v1.x', 'Latest', ''])
      assert.equal(parseVersion(bad), undefined, bad);
  });

  it('order versions with latest newest', () => {
    assert.ok(olderThan(minorVersion(9), minorVersion(10)));
    assert.ok(olderThan(minorVersion(99), LATEST));
    assert.ok(!olderThan(LATEST, minorVersion(99)));
    assert.equal(levelVersionString(lv('restricted', 24)), 'restricted:v1.24');
    assert.equal(levelVersionString(lv('baseline')), 'baseline:latest');
  });
});

describe('policyToEvaluate', () => {
  const cases: Array<{ desc: string; labels: Record<string, string>; expect: Policy; errors?: number }> = [
    {
      desc: 'simple enforce (warn follows it)',
      labels: labels('enforce', 'baseline'),
      expect: { enforce: lv('baseline'), warn: lv('baseline'), audit: privileged },
    },
    {
      desc: 'simple warn',
      labels: labels('warn', 'restricted'),
      expect: { enforce: privileged, warn: lv('restricted'), audit: privileged },
    },
    {
      desc: 'simple audit',
      labels: labels('audit', 'baseline'),
      expect: { enforce: privileged, warn: privileged, audit: lv('baseline') },
    },
    {
      desc: 'enforce & warn',
      labels: labels('enforce', 'baseline', 'warn', 'restricted'),
      expect: { enforce: lv('baseline'), warn: lv('restricted'), audit: privileged },
    },
    {
      desc: 'enforce version',
      labels: labels('enforce', 'baseline', 'enforce-version', 'v1.22'),
      expect: { enforce: lv('baseline', 22), warn: lv('baseline', 22), audit: privileged },
    },
    {
      desc: 'enforce version & warn-version',
      labels: labels('enforce', 'baseline', 'enforce-version', 'v1.22', 'warn-version', 'latest'),
      expect: { enforce: lv('baseline', 22), warn: lv('baseline'), audit: privileged },
    },
    {
      desc: 'enforce & warn-version',
      labels: labels('enforce', 'baseline', 'warn-version', 'v1.23'),
      expect: { enforce: lv('baseline'), warn: lv('baseline', 23), audit: privileged },
    },
    {
      desc: 'fully specified',
      labels: labels(
        'enforce',
        'baseline',
        'enforce-version',
        'v1.20',
        'warn',
        'restricted',
        'warn-version',
        'v1.21',
        'audit',
        'restricted',
        'audit-version',
        'v1.22',
      ),
      expect: { enforce: lv('baseline', 20), warn: lv('restricted', 21), audit: lv('restricted', 22) },
    },
    {
      desc: 'enforce, warn privileged',
      labels: labels('enforce', 'baseline', 'warn', 'privileged'),
      expect: { enforce: lv('baseline'), warn: privileged, audit: privileged },
    },
    {
      desc: 'a bad warn level fails open',
      labels: labels('enforce', 'baseline', 'warn', 'foo'),
      expect: { enforce: lv('baseline'), warn: privileged, audit: privileged },
      errors: 1,
    },
    {
      desc: 'a bad enforce level fails closed, and warn does not follow it',
      labels: labels('enforce', 'foo'),
      expect: { enforce: lv('restricted'), warn: privileged, audit: privileged },
      errors: 1,
    },
    {
      desc: 'a bad version reads as latest',
      labels: labels('audit', 'baseline', 'audit-version', 'v1.x'),
      expect: { enforce: privileged, warn: privileged, audit: lv('baseline') },
      errors: 1,
    },
  ];
  for (const c of cases) {
    it(c.desc, () => {
      const { policy, errors } = policyToEvaluate(c.labels, PRIVILEGED);
      assert.deepEqual(policy, c.expect);
      assert.equal(errors.length, c.errors ?? 0);
    });
  }

  it('words its errors as upstream', () => {
    const { errors } = policyToEvaluate(labels('enforce', 'foo', 'warn-version', '1.2'), PRIVILEGED);
    assert.deepEqual(
      errors.map((e) => e.message),
      [
        'metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted',
        'metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.2": must be "latest" or "v1.x"',
      ],
    );
  });

  it('takes unlabelled modes from the defaults', () => {
    const defaults: Policy = { enforce: lv('baseline', 30), audit: lv('restricted'), warn: privileged };
    assert.deepEqual(policyToEvaluate(undefined, defaults).policy, defaults);
    assert.deepEqual(policyToEvaluate(labels('audit', 'privileged'), defaults).policy, {
      ...defaults,
      audit: privileged,
    });
  });
});
