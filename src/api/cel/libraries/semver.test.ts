import { describe, it } from 'node:test';
import assert from '../../../testing/assert.js';
import { compileCel } from '../index.js';
import { compareSemver, normalizeAndParseSemver, parseSemver } from './semver.js';

describe('semver library: parsing as upstream', () => {
  it('reads major, minor, patch, pre-release and build', () => {
    const v = parseSemver('1.22.3-rc.1.x-y+build.7');
    assert.deepEqual([v.major, v.minor, v.patch], [1n, 22n, 3n]);
    assert.equal(String(v), '1.22.3-rc.1.x-y+build.7');
    assert.deepEqual(v.pre, ['rc', 1n, 'x-y']);
    assert.deepEqual(v.build, ['build', '7']);
  });

  it("refuses what upstream's parser refuses, in its words", () => {
    const error = (s: string) => {
      try {
        parseSemver(s);
      } catch (err) {
        return (err as Error).message;
      }
      return 'parsed';
    };
    assert.equal(error(''), 'Version string empty');
    assert.equal(error('1.2'), 'No Major.Minor.Patch elements found');
    assert.equal(error('v1.2.3'), 'Invalid character(s) found in major number "v1"');
    assert.equal(error('01.2.3'), 'Major number must not contain leading zeroes "01"');
    assert.equal(error('1.02.3'), 'Minor number must not contain leading zeroes "02"');
    assert.equal(error('1.2.x'), 'Invalid character(s) found in patch number "x"');
    assert.equal(error('1..3'), 'strconv.ParseUint: parsing "": invalid syntax');
    assert.equal(error('1.2.3-'), 'Prerelease is empty');
    assert.equal(error('1.2.3-01'), 'Numeric PreRelease version must not contain leading zeroes "01"');
    assert.equal(error('1.2.3-a_b'), 'Invalid character(s) found in prerelease "a_b"');
    assert.equal(error('1.2.3+'), 'Build meta data is empty');
    assert.equal(error('1.2.3+a_b'), 'Invalid character(s) found in build meta data "a_b"');
    assert.equal(
      error('18446744073709551616.0.0'),
      'strconv.ParseUint: parsing "18446744073709551616": value out of range',
    );
  });

  it('normalizes a leading v, leading zeros and short versions when asked', () => {
    assert.equal(String(normalizeAndParseSemver('v1.0')), '1.0.0');
    assert.equal(String(normalizeAndParseSemver('01.01.01')), '1.1.1');
    assert.equal(String(normalizeAndParseSemver('2')), '2.0.0');
    assert.equal(String(normalizeAndParseSemver('1.0.0-alpha')), '1.0.0-alpha');
    assert.throws(
      () => normalizeAndParseSemver('1.0-alpha'),
      /^Error: short version cannot contain PreRelease\/Build meta data$/,
    );
  });

  it('compares as semver.org orders versions, build metadata aside', () => {
    const order = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
      '1.0.1',
      '1.1.0',
      '2.0.0',
    ];
    for (let i = 0; i < order.length; i++) {
      for (let j = 0; j < order.length; j++) {
        assert.equal(
          compareSemver(parseSemver(order[i] as string), parseSemver(order[j] as string)),
          Math.sign(i - j),
          `${order[i]} vs ${order[j]}`,
        );
      }
    }
    assert.equal(compareSemver(parseSemver('1.0.0+a'), parseSemver('1.0.0+b')), 0);
  });

  it('fails an evaluation with the parser error', () => {
    assert.throws(() => compileCel('semver("1.2")', []).evaluate({}), /No Major\.Minor\.Patch elements found/);
  });
});
