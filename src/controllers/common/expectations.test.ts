import { describe, it } from 'node:test';
import assert from '../../testing/assert.js';
import { FakeClock } from '../../util/clock.js';
import { ControllerExpectations, EXPECTATIONS_TIMEOUT_MS, UIDTrackingControllerExpectations } from './expectations.js';

describe('ControllerExpectations', () => {
  it('is satisfied without a record, and once every expected add and delete was observed', () => {
    const exp = new ControllerExpectations(new FakeClock(1000));
    assert.equal(exp.satisfiedExpectations('ns/rs'), true);
    exp.expectCreations('ns/rs', 2);
    assert.equal(exp.satisfiedExpectations('ns/rs'), false);
    exp.creationObserved('ns/rs');
    assert.equal(exp.satisfiedExpectations('ns/rs'), false);
    exp.creationObserved('ns/rs');
    assert.equal(exp.satisfiedExpectations('ns/rs'), true);
    exp.expectDeletions('ns/rs', 1);
    assert.equal(exp.satisfiedExpectations('ns/rs'), false);
    exp.deletionObserved('ns/rs');
    assert.equal(exp.satisfiedExpectations('ns/rs'), true);
  });

  it('lowers and raises an existing record only', () => {
    const exp = new ControllerExpectations(new FakeClock());
    exp.lowerExpectations('ns/none', 1, 1);
    assert.equal(exp.getExpectations('ns/none'), undefined);
    exp.setExpectations('ns/rs', 3, 0);
    exp.lowerExpectations('ns/rs', 2, 0);
    exp.raiseExpectations('ns/rs', 0, 1);
    assert.deepEqual({ ...exp.getExpectations('ns/rs') }, { add: 1, del: 1, timestamp: 0 });
    exp.deleteExpectations('ns/rs');
    assert.equal(exp.getExpectations('ns/rs'), undefined);
    assert.equal(exp.satisfiedExpectations('ns/rs'), true);
  });

  it('expires unfulfilled expectations after five minutes on its clock', () => {
    const clock = new FakeClock(0);
    const exp = new ControllerExpectations(clock);
    exp.expectCreations('ns/rs', 5);
    clock.step(EXPECTATIONS_TIMEOUT_MS);
    assert.equal(exp.satisfiedExpectations('ns/rs'), false);
    clock.step(1);
    assert.equal(exp.satisfiedExpectations('ns/rs'), true);
    // A new record starts the timeout again.
    exp.expectCreations('ns/rs', 1);
    assert.equal(exp.satisfiedExpectations('ns/rs'), false);
  });
});

describe('UIDTrackingControllerExpectations', () => {
  it('counts each expected child deletion once, and ignores unexpected children', () => {
    const exp = new UIDTrackingControllerExpectations(new FakeClock());
    exp.expectDeletions('ns/rs', ['ns/a', 'ns/b']);
    exp.deletionObserved('ns/rs', 'ns/a');
    exp.deletionObserved('ns/rs', 'ns/a');
    exp.deletionObserved('ns/rs', 'ns/other');
    assert.equal(exp.satisfiedExpectations('ns/rs'), false);
    assert.deepEqual([...(exp.getDeleteKeys('ns/rs') ?? [])], ['ns/b']);
    exp.deletionObserved('ns/rs', 'ns/b');
    assert.equal(exp.satisfiedExpectations('ns/rs'), true);
  });

  it('tracks creations like ControllerExpectations and forgets everything on deleteExpectations', () => {
    const clock = new FakeClock();
    const exp = new UIDTrackingControllerExpectations(clock);
    exp.expectCreations('ns/rs', 1);
    assert.equal(exp.satisfiedExpectations('ns/rs'), false);
    exp.creationObserved('ns/rs');
    assert.equal(exp.satisfiedExpectations('ns/rs'), true);
    exp.expectDeletions('ns/rs', ['ns/a']);
    exp.deleteExpectations('ns/rs');
    assert.equal(exp.getDeleteKeys('ns/rs'), undefined);
    assert.equal(exp.satisfiedExpectations('ns/rs'), true);
    exp.expectDeletions('ns/rs', ['ns/a']);
    clock.step(EXPECTATIONS_TIMEOUT_MS + 1);
    assert.equal(exp.satisfiedExpectations('ns/rs'), true);
  });
});
