/**
 * policy/v1 PodDisruptionBudgets: minAvailable or maxUnavailable (not both) as counts or percentages, a valid
 * selector and eviction policy, the status subresource, and the NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED
 * DISRUPTIONS AGE printer.
 */
import { type FieldError, type FieldPath, invalid, notSupported, path } from '../../../api/field-errors.js';
import { validateLabelSelector } from '../../../api/validation/labels.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import { type Builtin, builtin } from './common.js';
import { column, int } from './groups-columns.js';
import { type Rec, rec, str, unset } from './groups-fields.js';
import { goPointer, goStruct } from './groups-go-format.js';
import { withStatusValidation } from './groups-status.js';
import { isNotMoreThan100Percent, nonNegative, validatePositiveIntOrPercent } from './groups-validation.js';

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

export function validatePodDisruptionBudgetSpec(spec: Rec, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!unset(spec.minAvailable) && !unset(spec.maxUnavailable)) {
    const shown = goStruct('policy.PodDisruptionBudgetSpec', [
      ['MinAvailable', goPointer('intstr.IntOrString', spec.minAvailable)],
      ['Selector', goPointer('v1.LabelSelector', spec.selector)],
      ['MaxUnavailable', goPointer('intstr.IntOrString', spec.maxUnavailable)],
      [
        'UnhealthyPodEvictionPolicy',
        goPointer('policy.UnhealthyPodEvictionPolicyType', spec.unhealthyPodEvictionPolicy),
      ],
    ]);
    errs.push(invalid(at, shown, 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const key of ['minAvailable', 'maxUnavailable']) {
    if (unset(spec[key])) continue;
    errs.push(
      ...validatePositiveIntOrPercent(spec[key], at.child(key)),
      ...isNotMoreThan100Percent(spec[key], at.child(key)),
    );
  }
  errs.push(...validateLabelSelector(unset(spec.selector) ? undefined : rec(spec.selector), {}, at.child('selector')));
  if (!unset(spec.unhealthyPodEvictionPolicy) && !EVICTION_POLICIES.includes(str(spec.unhealthyPodEvictionPolicy))) {
    errs.push(
      notSupported(at.child('unhealthyPodEvictionPolicy'), str(spec.unhealthyPodEvictionPolicy), EVICTION_POLICIES),
    );
  }
  return errs;
}

/** An IntOrString as IntOrString.String() prints it, or N/A when unset. */
function intOrStringCell(v: unknown): string {
  if (unset(v)) return 'N/A';
  return typeof v === 'number' ? String(v) : str(v);
}

export const poddisruptionbudgets: Builtin = withStatusValidation(
  builtin({
    group: 'policy',
    version: 'v1',
    resource: 'poddisruptionbudgets',
    hasStatus: true,
    strategy: {
      prepareForCreate(obj) {
        obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
      },
      validate: (obj) => validatePodDisruptionBudgetSpec(rec(obj.spec), path('spec')),
    },
    printer: {
      columns: [
        nameColumn,
        column('Min Available', 'The pods that must stay available.'),
        column('Max Unavailable', 'The pods that may be unavailable.'),
        column('Allowed Disruptions', 'How many pods may be disrupted now.', { type: 'integer' }),
        ageColumn,
      ],
      cells(o, now) {
        const spec = rec(o.spec);
        return [
          o.metadata.name,
          intOrStringCell(spec.minAvailable),
          intOrStringCell(spec.maxUnavailable),
          int(rec(o.status).disruptionsAllowed),
          age(o.metadata.creationTimestamp, now),
        ];
      },
    },
  }),
  (obj) => {
    const status = rec(obj.status);
    return ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'].flatMap((key) =>
      nonNegative(status[key] ?? 0, path('status', key)),
    );
  },
  // Upstream's status strategy resets only spec.
  [],
);
