/**
 * Validation shared by the apps workloads (and Jobs): the selector-to-template match and the pod template rules of
 * ReplicaSets and Deployments, with upstream's messages.
 */
import { type FieldError, type FieldPath, forbidden, invalid, notSupported } from '../../../api/field-errors.js';
import type { LabelSelector } from '../../../api/labels.js';
import { validatePodTemplateSpec } from './core-pod-validation.js';
import { rec, str, stringMap, unset } from './groups-fields.js';
import { goStringMap } from './groups-go-format.js';

export const SELECTOR_MISMATCH = '`selector` does not match template `labels`';

/** `<template>.metadata.labels: Invalid value: map[string]string{…}: `selector` does not match template `labels``. */
export function selectorMatchesTemplate(
  selector: LabelSelector | undefined,
  template: unknown,
  templatePath: FieldPath,
): FieldError[] {
  if (!selector || selector.isEmpty()) return [];
  const labels = rec(rec(template).metadata).labels;
  if (selector.matches(stringMap(labels))) return [];
  return [invalid(templatePath.child('metadata', 'labels'), goStringMap(labels), SELECTOR_MISMATCH)];
}

/** restartPolicy must be Always and activeDeadlineSeconds unset, for pods a controller keeps running. */
export function alwaysRunningTemplate(template: unknown, templatePath: FieldPath, kind: string): FieldError[] {
  const spec = rec(rec(template).spec);
  const errs: FieldError[] = [];
  if (str(spec.restartPolicy) !== 'Always') {
    errs.push(notSupported(templatePath.child('spec', 'restartPolicy'), str(spec.restartPolicy), ['Always']));
  }
  if (!unset(spec.activeDeadlineSeconds)) {
    errs.push(
      forbidden(
        templatePath.child('spec', 'activeDeadlineSeconds'),
        `activeDeadlineSeconds in ${kind} is not Supported`,
      ),
    );
  }
  return errs;
}

/** ValidatePodTemplateSpecForReplicaSet: the selector match, the pod template, and the always-running rules. */
export function validateTemplateForReplicaSet(
  template: unknown,
  selector: LabelSelector | undefined,
  templatePath: FieldPath,
  kind: string,
): FieldError[] {
  return [
    ...selectorMatchesTemplate(selector, template, templatePath),
    ...validatePodTemplateSpec(template, templatePath),
    ...alwaysRunningTemplate(template, templatePath, kind),
  ];
}
