/**
 * apps/v1 StatefulSets: upstream's defaults (OrderedReady, RollingUpdate with partition 0, Retain/Retain PVC
 * retention, 1 replica, revisionHistoryLimit 10, pod template and claim template defaults, claim templates typed
 * v1 PersistentVolumeClaim as the apps/v1 conversion writes them), spec validation, the rule that only some spec
 * fields change after creation, status and scale subresources, NAME READY AGE printer.
 */
import {
  type FieldError,
  type FieldPath,
  forbidden,
  invalid,
  notSupported,
  path,
  required,
} from '../../../api/field-errors.js';
import { validateLabels } from '../../../api/validation/labels.js';
import { nameIsDNSLabel } from '../../../api/validation/name-validators.js';
import { isDNS1123Label } from '../../../api/validation/names.js';
import { validateAnnotations } from '../../../api/validation/object-meta.js';
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn } from '../../printers/table.js';
import { isObject, jsonEqual, type KubeObject } from '../object.js';
import { defaultPodTemplate, embeddedObjectMeta } from './apps-pod-template-defaults.js';
import { validateAppsStatusCounts } from './apps-status-validation.js';
import { alwaysRunningTemplate, selectorMatchesTemplate } from './apps-workload-validation.js';
import { type Builtin, builtin } from './common.js';
import { defaultRequirements } from './core-resource-lists.js';
import { column, containerCells, int } from './groups-columns.js';
import { child, defaultString, defaultValue, type Rec, rec, records, str, stringMap, unset } from './groups-fields.js';
import { goIntOrString, goLabelSelector, goPointer, goStruct } from './groups-go-format.js';
import { withStatusValidation } from './groups-status.js';
import {
  intOrPercentValue,
  isNotMoreThan100Percent,
  nonNegative,
  validatePositiveIntOrPercent,
  validateRequiredSelector,
} from './groups-validation.js';
import { claimSpecWarnings, specTemplateWarnings } from './pod-warnings.js';

/**
 * A claim template as upstream's apps/v1 conversion writes it out: whatever type it was given is dropped on the way
 * in, and every template says apiVersion v1, kind PersistentVolumeClaim on the way out (first, as objects do here).
 */
function claimTyped(claim: unknown): unknown {
  return isObject(claim) ? { apiVersion: 'v1', kind: 'PersistentVolumeClaim', ...(claimUntyped(claim) as Rec) } : claim;
}

/** A claim template without its type, as upstream's internal object holds it (for the immutability rule). */
function claimUntyped(claim: unknown): unknown {
  if (!isObject(claim)) return claim;
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = claim;
  return rest;
}

export function defaultStatefulSet(obj: Rec): void {
  const spec = child(obj, 'spec');
  defaultString(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = child(spec, 'updateStrategy');
  if (unset(strategy.type) || strategy.type === '') {
    strategy.type = 'RollingUpdate';
    defaultValue(strategy, 'rollingUpdate', {});
  }
  if (strategy.type === 'RollingUpdate' && !unset(strategy.rollingUpdate)) {
    defaultValue(rec(strategy.rollingUpdate), 'partition', 0);
  }
  const retention = child(spec, 'persistentVolumeClaimRetentionPolicy');
  defaultString(retention, 'whenDeleted', 'Retain');
  defaultString(retention, 'whenScaled', 'Retain');
  defaultValue(spec, 'replicas', 1);
  defaultValue(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(spec, 'StatefulSet');
  if (Array.isArray(spec.volumeClaimTemplates)) spec.volumeClaimTemplates = spec.volumeClaimTemplates.map(claimTyped);
  for (const claim of records(spec.volumeClaimTemplates)) {
    embeddedObjectMeta(claim);
    const claimSpec = child(claim, 'spec');
    defaultValue(claimSpec, 'resources', {});
    defaultValue(claimSpec, 'volumeMode', 'Filesystem');
    defaultRequirements(claimSpec.resources, 'StatefulSet');
    defaultString(child(claim, 'status'), 'phase', 'Pending');
  }
}

function rollingUpdateShown(ru: Rec) {
  return goStruct('apps.RollingUpdateStatefulSetStrategy', [
    ['Partition', String(int(ru.partition))],
    ['MaxUnavailable', goPointer('intstr.IntOrString', ru.maxUnavailable)],
  ]);
}

function validateUpdateStrategy(strategy: Rec, at: FieldPath): FieldError[] {
  const type = str(strategy.type);
  const ruPath = at.child('rollingUpdate');
  if (type === '') return [required(at)];
  if (type === 'OnDelete') {
    return unset(strategy.rollingUpdate)
      ? []
      : [
          invalid(
            ruPath,
            rollingUpdateShown(rec(strategy.rollingUpdate)),
            "only allowed for updateStrategy 'RollingUpdate'",
          ),
        ];
  }
  if (type === 'RollingUpdate') {
    if (unset(strategy.rollingUpdate)) return [];
    const ru = rec(strategy.rollingUpdate);
    const errs = nonNegative(ru.partition ?? 0, ruPath.child('partition'));
    if (!unset(ru.maxUnavailable)) {
      const at2 = ruPath.child('maxUnavailable');
      errs.push(...validatePositiveIntOrPercent(ru.maxUnavailable, at2));
      if (intOrPercentValue(ru.maxUnavailable) === 0)
        errs.push(invalid(at2, goIntOrString(ru.maxUnavailable), 'cannot be 0'));
      errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, at2));
    }
    return errs;
  }
  const shown = goStruct('apps.StatefulSetUpdateStrategy', [
    ['Type', JSON.stringify(type)],
    ['RollingUpdate', goPointer('apps.RollingUpdateStatefulSetStrategy', strategy.rollingUpdate)],
  ]);
  return [invalid(at, shown, "must be 'RollingUpdate' or 'OnDelete'")];
}

/**
 * The claim templates' storage warnings and a negative revisionHistoryLimit's, as upstream's strategy gives them
 * (its update path names each claim template's spec `Spec`, as upstream's does).
 */
function statefulSetWarnings(obj: KubeObject, update: boolean): string[] {
  const spec = rec(obj.spec);
  const out = records(spec.volumeClaimTemplates).flatMap((claim, i) => {
    const at = path('spec', 'volumeClaimTemplates').index(i);
    return claimSpecWarnings(update ? at.child('Spec') : at, claim.spec);
  });
  if (typeof spec.revisionHistoryLimit === 'number' && spec.revisionHistoryLimit < 0) {
    out.push(
      'spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended',
    );
  }
  return out;
}

/**
 * ValidateStatefulSetSpec (the pod spec itself is not validated for StatefulSets upstream either). A new StatefulSet's
 * serviceName must be a DNS-1123 label (v1.33: such a name could never make pods); an update tolerates an old one.
 */
export function validateStatefulSetSpec(spec: Rec, at: FieldPath, allowInvalidServiceName = false): FieldError[] {
  const errs: FieldError[] = [];
  const policy = str(spec.podManagementPolicy);
  if (policy === '') errs.push(required(at.child('podManagementPolicy')));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') {
    errs.push(invalid(at.child('podManagementPolicy'), policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  errs.push(...validateUpdateStrategy(rec(spec.updateStrategy), at.child('updateStrategy')));
  if (!unset(spec.persistentVolumeClaimRetentionPolicy)) {
    const retention = rec(spec.persistentVolumeClaimRetentionPolicy);
    for (const key of ['whenDeleted', 'whenScaled']) {
      const v = str(retention[key]);
      if (v !== 'Retain' && v !== 'Delete') {
        errs.push(notSupported(at.child('persistentVolumeClaimRetentionPolicy', key), v, ['Retain', 'Delete']));
      }
    }
  }
  errs.push(...nonNegative(spec.replicas ?? 0, at.child('replicas')));
  errs.push(...nonNegative(spec.minReadySeconds ?? 0, at.child('minReadySeconds')));
  if (!unset(spec.ordinals)) errs.push(...nonNegative(rec(spec.ordinals).start ?? 0, at.child('ordinals.start')));
  const serviceName = str(spec.serviceName);
  if (!allowInvalidServiceName && serviceName !== '') {
    for (const msg of isDNS1123Label(serviceName)) errs.push(invalid(at.child('serviceName'), serviceName, msg));
  }
  const selector = validateRequiredSelector(spec.selector, at.child('selector'), 'statefulset');
  errs.push(...selector.errs);
  const templatePath = at.child('template');
  if (selector.parsed) {
    const meta = rec(rec(spec.template).metadata);
    errs.push(...selectorMatchesTemplate(selector.parsed, spec.template, templatePath));
    errs.push(...validateLabels(stringMap(meta.labels), templatePath.child('labels')));
    errs.push(...validateAnnotations(stringMap(meta.annotations), templatePath.child('annotations')));
  } else {
    errs.push(invalid(at.child('selector'), goLabelSelector(spec.selector), ''));
  }
  return [...errs, ...alwaysRunningTemplate(spec.template, templatePath, 'StatefulSet')];
}

/**
 * The MaxUnavailableStatefulSet feature gate (alpha, off by default in v1.33). wheelhouse has no --feature-gates
 * flag yet, so it is off.
 */
export const MAX_UNAVAILABLE_STATEFUL_SET = false;

/**
 * Upstream's dropStatefulSetDisabledFields: with MaxUnavailableStatefulSet off, rollingUpdate.maxUnavailable is
 * dropped on create, and on update unless the stored object already uses it.
 */
function dropDisabledFields(spec: Rec, oldSpec: Rec | undefined): void {
  if (MAX_UNAVAILABLE_STATEFUL_SET) return;
  const inUse = (s: Rec | undefined) => !!s && !unset(rec(rec(s.updateStrategy).rollingUpdate).maxUnavailable);
  if (inUse(oldSpec)) return;
  const strategy = rec(spec.updateStrategy);
  if (!unset(strategy.rollingUpdate)) delete rec(strategy.rollingUpdate).maxUnavailable;
}

const MUTABLE_SPEC_FIELDS = [
  'replicas',
  'template',
  'updateStrategy',
  'minReadySeconds',
  'ordinals',
  'persistentVolumeClaimRetentionPolicy',
];

function immutableSpecRest(spec: Rec, old: Rec): FieldError[] {
  const rest = (s: Rec) =>
    Object.fromEntries(
      Object.entries(s)
        .filter(([k]) => !MUTABLE_SPEC_FIELDS.includes(k))
        // Compared as upstream's internal object holds them: a claim template's type is not part of it.
        .map(([k, v]) => [k, k === 'volumeClaimTemplates' && Array.isArray(v) ? v.map(claimUntyped) : v]),
    );
  if (jsonEqual(rest(spec), rest(old))) return [];
  return [
    forbidden(
      path('spec'),
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ),
  ];
}

export const statefulsets: Builtin = withStatusValidation(
  builtin({
    group: 'apps',
    version: 'v1',
    resource: 'statefulsets',
    nameValidator: nameIsDNSLabel,
    hasStatus: true,
    hasScale: true,
    strategy: {
      warningsOnCreate: (obj) => [...specTemplateWarnings(obj), ...statefulSetWarnings(obj, false)],
      warningsOnUpdate: (obj, old) => [
        ...((obj.metadata.generation ?? 0) !== (old.metadata.generation ?? 0) ? specTemplateWarnings(obj) : []),
        ...statefulSetWarnings(obj, true),
      ],
      default: defaultStatefulSet,
      prepareForCreate(obj) {
        obj.status = { replicas: 0 };
        dropDisabledFields(rec(obj.spec), undefined);
      },
      prepareForUpdate(obj, old) {
        dropDisabledFields(rec(obj.spec), rec(old.spec));
      },
      validate: (obj) => validateStatefulSetSpec(rec(obj.spec), path('spec')),
      validateUpdate: (obj, old) => [
        ...validateStatefulSetSpec(rec(obj.spec), path('spec'), true),
        ...immutableSpecRest(rec(obj.spec), rec(old.spec)),
      ],
    },
    printer: {
      columns: [
        nameColumn,
        column('Ready', 'Ready pods out of the desired replicas.'),
        ageColumn,
        column('Containers', 'The containers of the pod template.', { wide: true }),
        column('Images', 'The images of the pod template.', { wide: true }),
      ],
      cells(o, now) {
        const spec = rec(o.spec);
        const [names, images] = containerCells(spec.template);
        return [
          o.metadata.name,
          `${int(rec(o.status).readyReplicas)}/${int(spec.replicas)}`,
          age(o.metadata.creationTimestamp, now),
          names,
          images,
        ];
      },
    },
  }),
  (obj, old) =>
    validateAppsStatusCounts(rec(obj.status), rec(old.status), path('status'), {
      counts: [
        'replicas',
        'readyReplicas',
        'currentReplicas',
        'updatedReplicas',
        'availableReplicas',
        'observedGeneration',
      ],
      notAboveReplicas: ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'],
      availableNotAboveReady: 'cannot be greater than status.readyReplicas',
    }),
  // Upstream's status strategy resets only spec.
  [],
);
