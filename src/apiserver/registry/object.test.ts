import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { generateNameFrom } from './object.js';

describe('generateNameFrom', () => {
  it("adds five characters of upstream's alphabet and keeps the name within 63 characters", () => {
    const names = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const name = generateNameFrom('web-');
      assert.match(name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      names.add(name);
    }
    // 27^5 possible suffixes: 2000 draws all but never collide, and every letter of the alphabet shows up.
    assert.ok(names.size > 1990);
    const seen = new Set([...names].flatMap((n) => [...n.slice(4)]));
    assert.equal(seen.size, 27);
    assert.equal(generateNameFrom('x'.repeat(70)).length, 63);
  });
});
