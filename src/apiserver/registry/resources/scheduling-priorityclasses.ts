/**
 * scheduling.k8s.io/v1 PriorityClasses: preemptionPolicy defaults to PreemptLowerPriority; `system-` names are
 * reserved for the two built-in classes; user values stop at one billion; value and preemptionPolicy are
 * immutable. systemPriorityClasses() gives the two objects the bootstrap creates.
 */
import { type FieldError, forbidden, notSupported, path, required } from '../../../api/field-errors.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import { type Builtin, builtin } from './common.js';
import { column, int } from './groups-columns.js';
import { defaultValue, str, unset } from './groups-fields.js';
import { immutable } from './groups-validation.js';

export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
export const SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY;
const SYSTEM_PREFIX = 'system-';

const SYSTEM_CLASSES = [
  {
    name: 'system-node-critical',
    value: SYSTEM_CRITICAL_PRIORITY + 1000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    name: 'system-cluster-critical',
    value: SYSTEM_CRITICAL_PRIORITY,
    description:
      'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

/** The built-in priority classes, as the bootstrap creates them (to be posted through the normal create path). */
export function systemPriorityClasses(): KubeObject[] {
  return SYSTEM_CLASSES.map(({ name, value, description }) => ({
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name },
    value,
    description,
  }));
}

/** The names that DELETE must refuse ("this is a system priority class and cannot be deleted"). */
export const SYSTEM_PRIORITY_CLASS_NAMES: readonly string[] = SYSTEM_CLASSES.map((c) => c.name);

/** IsKnownSystemPriorityClass's error, or undefined when the class is one of the built-ins exactly. */
function systemClassError(name: string, value: unknown, globalDefault: boolean): string | undefined {
  const known = SYSTEM_CLASSES.find((c) => c.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

const PREEMPTION_POLICIES = ['Never', 'PreemptLowerPriority'];

function validatePriorityClass(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata.name ?? '';
  if (name.startsWith(SYSTEM_PREFIX)) {
    const err = systemClassError(name, obj.value ?? 0, obj.globalDefault === true);
    if (err) {
      errs.push(
        forbidden(
          path('metadata', 'name'),
          `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${err}`,
        ),
      );
    }
  } else if (typeof obj.value === 'number' && obj.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(
      forbidden(
        path('value'),
        `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`,
      ),
    );
  }
  if (!unset(obj.preemptionPolicy)) {
    const policy = str(obj.preemptionPolicy);
    if (policy === '') errs.push(required(path('preemptionPolicy')));
    else if (!PREEMPTION_POLICIES.includes(policy)) {
      errs.push(notSupported(path('preemptionPolicy'), policy, ['PreemptLowerPriority', 'Never']));
    }
  }
  return errs;
}

export const priorityclasses: Builtin = builtin({
  group: 'scheduling.k8s.io',
  version: 'v1',
  resource: 'priorityclasses',
  strategy: {
    tracksGeneration: false,
    default(obj) {
      defaultValue(obj, 'preemptionPolicy', 'PreemptLowerPriority');
    },
    validate: validatePriorityClass,
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      if (obj.value !== old.value) errs.push(forbidden(path('value'), 'may not be changed in an update.'));
      errs.push(...immutable(path('preemptionPolicy'), obj.preemptionPolicy, old.preemptionPolicy));
      return errs;
    },
  },
  printer: {
    columns: [
      nameColumn,
      column('Value', 'The priority of pods of this class.', { type: 'integer' }),
      column('Global-Default', 'Whether pods without a class get this one.', { type: 'boolean' }),
      ageColumn,
      column('PreemptionPolicy', 'Whether pods of this class preempt lower ones.', { wide: true }),
    ],
    cells: (o, now) => [
      o.metadata.name,
      int(o.value),
      o.globalDefault === true,
      age(o.metadata.creationTimestamp, now),
      str(o.preemptionPolicy),
    ],
  },
});
