/** What PodSecurity tests share: upstream's texts for a common pod, and assertions on one check's result. */
import type { CheckResult } from '../apiserver/admission/podsecurity/checks/check.js';
import assert from './assert.js';

/**
 * Upstream's restricted:latest reasons, with details, for a pod of one container `c` that sets only
 * `securityContext.privileged: true` (what `kubectl run c --image=… --privileged` makes).
 */
export function privilegedContainerViolations(c: string): string {
  return (
    `privileged (container "${c}" must not set securityContext.privileged=true), ` +
    `allowPrivilegeEscalation != false (container "${c}" must set securityContext.allowPrivilegeEscalation=false), ` +
    `unrestricted capabilities (container "${c}" must set securityContext.capabilities.drop=["ALL"]), ` +
    `runAsNonRoot != true (pod or container "${c}" must set securityContext.runAsNonRoot=true), ` +
    `seccompProfile (pod or container "${c}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
  );
}

/** The check ran and refused, with this reason and detail. */
export function expectForbidden(result: CheckResult | undefined, reason: string, detail: string): void {
  assert.ok(result, 'the check runs at this version');
  assert.equal(result.allowed, false);
  assert.equal(result.reason, reason);
  assert.equal(result.detail, detail);
}

/** The check ran and allowed. */
export function expectAllowed(result: CheckResult | undefined): void {
  assert.ok(result, 'the check runs at this version');
  assert.equal(result.allowed, true, result.detail);
}
