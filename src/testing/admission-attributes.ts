/**
 * Admission attributes for tests of admission plugins: by default a CREATE of ConfigMap `c` in `default` by user
 * jane (authenticated), not a dry run; any field can be given instead.
 */
import type { AdmissionAttributes } from '../apiserver/admission/types.js';
import type { KubeObject } from '../apiserver/registry/object.js';

export function admissionAttributes(over: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  const object = (over.object ?? { metadata: { name: 'c' } }) as KubeObject;
  return {
    operation: 'CREATE',
    object,
    oldObject: undefined,
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    namespace: 'default',
    name: object.metadata?.name ?? '',
    userInfo: { name: 'jane', groups: ['system:authenticated'] },
    dryRun: false,
    ...over,
  };
}
