/** Every Pod Security check upstream's v1.33 registers by default (none of them experimental). */
import type { Check } from './check.js';
import { HOST_CHECKS } from './host.js';
import { PRIVILEGE_CHECKS } from './privilege.js';
import { PROFILE_CHECKS } from './profiles.js';
import { SYSCTL_CHECKS } from './sysctls.js';
import { USER_CHECKS } from './users.js';
import { VOLUME_CHECKS } from './volumes.js';

export const DEFAULT_CHECKS: readonly Check[] = [
  ...HOST_CHECKS,
  ...PRIVILEGE_CHECKS,
  ...PROFILE_CHECKS,
  ...SYSCTL_CHECKS,
  ...USER_CHECKS,
  ...VOLUME_CHECKS,
];
