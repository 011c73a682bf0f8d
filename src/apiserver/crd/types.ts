/**
 * The apiextensions.k8s.io/v1 CustomResourceDefinition as the apiserver reads it (the fields it acts on), and the
 * condition helpers its controllers share.
 */
import type { KubeObject } from '../registry/object.js';

/** A node of an OpenAPI v3 schema as a CRD holds it (JSONSchemaProps); read loosely, as the wire allows. */
export type JSONSchemaProps = Record<string, unknown>;

export interface CRDNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface ScaleSubresource {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface CRDSubresources {
  status?: Record<string, never>;
  scale?: ScaleSubresource;
}

export interface PrinterColumn {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface SelectableField {
  jsonPath?: string;
}

export interface CRDVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CRDSubresources;
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: SelectableField[];
}

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CRDSpec {
  group?: string;
  names?: CRDNames;
  scope?: string;
  versions?: CRDVersion[];
  conversion?: { strategy?: string; webhook?: unknown };
  preserveUnknownFields?: boolean;
}

export interface CRDStatus {
  conditions?: CRDCondition[];
  acceptedNames?: CRDNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CRDSpec;
  status?: CRDStatus;
}

/** The finalizer that makes a deleted CRD wait until its custom resources are gone. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export const CRD_GROUP = 'apiextensions.k8s.io';

export function asCRD(obj: KubeObject): CustomResourceDefinition {
  const crd = obj as CustomResourceDefinition;
  if (!crd.spec || typeof crd.spec !== 'object') crd.spec = {};
  return crd;
}

export function findCondition(crd: CustomResourceDefinition, type: string): CRDCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/**
 * Sets a condition as upstream's SetCRDCondition: the transition time changes only when the status does, and an
 * unchanged condition is left alone.
 */
export function setCondition(crd: CustomResourceDefinition, next: CRDCondition, now: string): void {
  crd.status ??= {};
  crd.status.conditions ??= [];
  const conditions = crd.status.conditions;
  const i = conditions.findIndex((c) => c.type === next.type);
  const old = conditions[i];
  if (!old) {
    conditions.push({ ...next, lastTransitionTime: next.lastTransitionTime ?? now });
    return;
  }
  const lastTransitionTime = old.status === next.status ? old.lastTransitionTime : now;
  conditions[i] = { ...next, ...(lastTransitionTime ? { lastTransitionTime } : {}) };
}

/** The version objects are stored in (the one with storage: true). */
export function storageVersion(crd: CustomResourceDefinition): string | undefined {
  return crd.spec.versions?.find((v) => v.storage === true)?.name;
}
