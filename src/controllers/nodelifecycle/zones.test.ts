import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import { silentLogger } from '../../util/logger.js';
import { Zones } from './zones.js';

const RATES = {
  nodeEvictionRate: 0.1,
  secondaryNodeEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55,
};
const ready = (status: string) => ({ type: 'Ready', status });
const zone = (...statuses: string[]) => statuses.map(ready);

describe('Zones', () => {
  it('stops tainting when every zone is fully disrupted and resumes when a node is ready', () => {
    const zones = new Zones(RATES, new FakeClock(0), silentLogger);
    zones.addZone('a');
    zones.addZone('b');
    assert.equal(
      zones.update(
        new Map([
          ['a', zone('True')],
          ['b', zone('True')],
        ]),
      ),
      'zonesChanged',
    );
    assert.equal(
      zones.update(
        new Map([
          ['a', zone('Unknown')],
          ['b', zone('True')],
        ]),
      ),
      'zonesChanged',
    );
    assert.equal(zones.states.get('a'), 'FullDisruption');
    assert.equal(zones.tainterFor('a').qps, 0.1, 'one fully disrupted zone among others keeps the normal rate');
    assert.equal(
      zones.update(
        new Map([
          ['a', zone('Unknown')],
          ['b', zone('Unknown')],
        ]),
      ),
      'enteredFullDisruption',
    );
    assert.equal(zones.tainterFor('a').qps, 0);
    assert.equal(zones.tainterFor('b').qps, 0);
    assert.equal(
      zones.update(
        new Map([
          ['a', zone('Unknown')],
          ['b', zone('Unknown')],
        ]),
      ),
      'none',
    );
    assert.equal(
      zones.update(
        new Map([
          ['a', zone('True')],
          ['b', zone('Unknown')],
        ]),
      ),
      'exitedFullDisruption',
    );
    assert.equal(zones.states.get('a'), 'Normal');
    assert.equal(zones.tainterFor('a').qps, 0.1);
  });

  it('stops tainting a partially disrupted zone of a small cluster, slows it in a large one', () => {
    const zones = new Zones(RATES, new FakeClock(0), silentLogger);
    zones.addZone('small');
    zones.addZone('large');
    const large = [
      ...zone('False', 'False', 'False'),
      ...Array.from({ length: 48 }, () => ready('False')),
      ready('True'),
    ];
    zones.update(
      new Map([
        ['small', zone('True')],
        ['large', zone('True')],
      ]),
    );
    zones.update(
      new Map([
        ['small', zone('False', 'False', 'Unknown', 'True')],
        ['large', large],
      ]),
    );
    assert.equal(zones.states.get('small'), 'PartialDisruption');
    assert.equal(zones.tainterFor('small').qps, 0);
    assert.equal(zones.states.get('large'), 'PartialDisruption');
    assert.equal(zones.tainterFor('large').qps, 0.01);
  });
});
