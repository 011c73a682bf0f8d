import { test } from 'node:test';
import assert from '../testing/assert.js';
import { formatTime } from './time.js';

test('formatTime writes meta/v1 Time: UTC, whole seconds, each instant its own second', () => {
  assert.equal(formatTime(Date.UTC(2026, 11, 6, 13, 44, 31, 999)), '2026-12-06T13:44:31Z');
  assert.equal(formatTime(Date.UTC(2026, 11, 6, 13, 44, 32, 0)), '2026-12-06T13:44:32Z');
  // Back to an earlier second: the remembered text is for another second and is not reused.
  assert.equal(formatTime(Date.UTC(2026, 11, 6, 13, 44, 31, 1)), '2026-12-06T13:44:31Z');
  assert.equal(formatTime(0), '1970-01-01T00:00:00Z');
});
