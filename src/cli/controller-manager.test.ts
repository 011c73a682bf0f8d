import { describe, it } from 'node:test';
import { DEFAULT_CONTROLLER_MANAGER_OPTIONS } from '../controllers/options.js';
import assert from '../testing/assert.js';
import { controllerManagerHelp, controllerManagerOptionsOf } from './controller-manager.js';
import { UsageError } from './storage-flags.js';

describe('kube-controller-manager flags', () => {
  it('--use-service-account-credentials is off unless set, as upstream', () => {
    assert.equal(controllerManagerOptionsOf({}).useServiceAccountCredentials, false);
    assert.equal(
      controllerManagerOptionsOf({ 'use-service-account-credentials': 'true' }).useServiceAccountCredentials,
      true,
    );
    assert.throws(
      () => controllerManagerOptionsOf({ 'use-service-account-credentials': 'yes' }),
      (err: unknown) =>
        err instanceof UsageError &&
        err.message ===
          'invalid argument "yes" for "--use-service-account-credentials" flag: strconv.ParseBool: parsing "yes": invalid syntax',
    );
    assert.match(controllerManagerHelp, /--use-service-account-credentials BOOL/);
  });

  it('flags apply over the defaults given (wheelhouse up turns the credentials on, as kubeadm)', () => {
    const defaults = { ...DEFAULT_CONTROLLER_MANAGER_OPTIONS, useServiceAccountCredentials: true };
    assert.equal(controllerManagerOptionsOf({}, defaults).useServiceAccountCredentials, true);
    const off = controllerManagerOptionsOf({ 'use-service-account-credentials': 'false' }, defaults);
    assert.equal(off.useServiceAccountCredentials, false);
  });
});
