/**
 * Which admission plugins run, from kube-apiserver's flags: upstream's default set, plus
 * --enable-admission-plugins, minus --disable-admission-plugins, always in upstream's fixed order (the order of the
 * flag values does not matter). Every name upstream knows is accepted; the plugins not built yet are reported once
 * at start-up as enabled but not implemented, and let requests through.
 */
import type { Logger } from '../../util/logger.js';
import type { APIRegistry } from '../api-registry.js';
import { AdmissionChain } from './chain.js';
import { ALL_ORDERED_PLUGINS, DEFAULT_ON_PLUGINS } from './order.js';
import { readAdmissionConfiguration } from './plugin-config.js';
import { alwaysAdmit, alwaysDeny } from './plugins/always.js';
import { CERTIFICATE_APPROVAL, certificateApproval } from './plugins/certificate-approval.js';
import { CERTIFICATE_SIGNING, certificateSigning } from './plugins/certificate-signing.js';
import {
  CERTIFICATE_SUBJECT_RESTRICTION,
  certificateSubjectRestriction,
} from './plugins/certificate-subject-restriction.js';
import { ClusterReader } from './plugins/cluster-reader.js';
import { DEFAULT_INGRESS_CLASS, defaultIngressClassPlugin } from './plugins/default-ingress-class.js';
import {
  DEFAULT_STORAGE_CLASS,
  defaultStorageClassPlugin,
  type StorageClassSource,
} from './plugins/default-storage-class.js';
import { DEFAULT_TOLERATION_SECONDS, defaultTolerationSeconds } from './plugins/default-toleration-seconds.js';
import { LIMIT_RANGER, limitRanger } from './plugins/limit-ranger.js';
import { NAMESPACE_LIFECYCLE, namespaceLifecycle } from './plugins/namespace-lifecycle.js';
import { NODE_RESTRICTION, nodeRestriction } from './plugins/node-restriction.js';
import {
  PERSISTENT_VOLUME_CLAIM_RESIZE,
  persistentVolumeClaimResize,
} from './plugins/persistent-volume-claim-resize.js';
import { PRIORITY, type PriorityClassSource, priority } from './plugins/priority.js';
import { RESOURCE_QUOTA, resourceQuota } from './plugins/resource-quota.js';
import { RUNTIME_CLASS, runtimeClass } from './plugins/runtime-class.js';
import { SERVICE_ACCOUNT, serviceAccount } from './plugins/service-account.js';
import {
  STORAGE_OBJECT_IN_USE_PROTECTION,
  storageObjectInUseProtection,
} from './plugins/storage-object-in-use-protection.js';
import { TAINT_NODES_BY_CONDITION, taintNodesByCondition } from './plugins/taint-nodes-by-condition.js';
import { POD_SECURITY, podSecurityForRegistry } from './podsecurity/plugin.js';
import { VALIDATING_ADMISSION_POLICY, validatingAdmissionPolicy } from './policy/plugin.js';
import type { AdmissionPlugin } from './types.js';
import { celMatchConditions } from './webhook/match-conditions-cel.js';
import { MUTATING_ADMISSION_WEBHOOK, mutatingAdmissionWebhook } from './webhook/mutating.js';
import { VALIDATING_ADMISSION_WEBHOOK, validatingAdmissionWebhook } from './webhook/validating.js';

/** kube-apiserver's admission flags. */
export interface AdmissionOptions {
  /** --enable-admission-plugins: plugins to run besides the default ones. */
  enablePlugins?: readonly string[];
  /** --disable-admission-plugins: plugins not to run, default ones included. */
  disablePlugins?: readonly string[];
  /** --default-not-ready-toleration-seconds (300). */
  defaultNotReadyTolerationSeconds?: number;
  /** --default-unreachable-toleration-seconds (300). */
  defaultUnreachableTolerationSeconds?: number;
  /** --admission-control-config-file: an AdmissionConfiguration with the plugins' own configurations. */
  configFile?: string;
}

/** What plugins may read besides the request. */
export interface AdmissionDependencies {
  /**
   * The served resources (their stores and watch caches), for plugins that read cluster state as upstream's read
   * informers: namespaces, quotas, limit ranges, webhook configurations, policies. Filled in as the registry is
   * built, so plugins look resources up when a request comes, not when they are made.
   */
  registry: APIRegistry;
  priorityClasses: PriorityClassSource;
  /** For DefaultStorageClass (absent: the plugin changes nothing). */
  storageClasses?: StorageClassSource;
}

type Factory = (opts: AdmissionOptions, deps: AdmissionDependencies) => AdmissionPlugin;

/** The plugins this server implements, by name. */
const IMPLEMENTED: ReadonlyMap<string, Factory> = new Map<string, Factory>([
  ['AlwaysAdmit', () => alwaysAdmit()],
  [NAMESPACE_LIFECYCLE, (_, deps) => namespaceLifecycle(new ClusterReader(deps.registry))],
  [LIMIT_RANGER, (_, deps) => limitRanger(new ClusterReader(deps.registry))],
  [SERVICE_ACCOUNT, (_, deps) => serviceAccount(new ClusterReader(deps.registry))],
  [RESOURCE_QUOTA, (_, deps) => resourceQuota(new ClusterReader(deps.registry))],
  [STORAGE_OBJECT_IN_USE_PROTECTION, () => storageObjectInUseProtection()],
  [PERSISTENT_VOLUME_CLAIM_RESIZE, (_, deps) => persistentVolumeClaimResize(new ClusterReader(deps.registry))],
  [RUNTIME_CLASS, (_, deps) => runtimeClass(new ClusterReader(deps.registry))],
  [DEFAULT_INGRESS_CLASS, (_, deps) => defaultIngressClassPlugin(new ClusterReader(deps.registry))],
  [TAINT_NODES_BY_CONDITION, () => taintNodesByCondition()],
  [NODE_RESTRICTION, (_, deps) => nodeRestriction(new ClusterReader(deps.registry))],
  [PRIORITY, (_, deps) => priority(deps.priorityClasses)],
  [DEFAULT_STORAGE_CLASS, (_, deps) => defaultStorageClassPlugin(deps.storageClasses)],
  [
    DEFAULT_TOLERATION_SECONDS,
    (opts) =>
      defaultTolerationSeconds({
        ...(opts.defaultNotReadyTolerationSeconds !== undefined
          ? { notReadySeconds: opts.defaultNotReadyTolerationSeconds }
          : {}),
        ...(opts.defaultUnreachableTolerationSeconds !== undefined
          ? { unreachableSeconds: opts.defaultUnreachableTolerationSeconds }
          : {}),
      }),
  ],
  [
    POD_SECURITY,
    (opts, deps) =>
      podSecurityForRegistry(deps.registry, readAdmissionConfiguration(opts.configFile).configFor(POD_SECURITY)),
  ],
  [MUTATING_ADMISSION_WEBHOOK, (_, deps) => mutatingAdmissionWebhook(deps.registry, celMatchConditions(deps.registry))],
  [
    VALIDATING_ADMISSION_WEBHOOK,
    (_, deps) => validatingAdmissionWebhook(deps.registry, celMatchConditions(deps.registry)),
  ],
  [CERTIFICATE_APPROVAL, (_, deps) => certificateApproval(deps.registry)],
  [CERTIFICATE_SIGNING, (_, deps) => certificateSigning(deps.registry)],
  [CERTIFICATE_SUBJECT_RESTRICTION, () => certificateSubjectRestriction()],
  [VALIDATING_ADMISSION_POLICY, (_, deps) => validatingAdmissionPolicy(deps.registry)],
  ['AlwaysDeny', () => alwaysDeny()],
]);

/** Whether this server implements the named plugin (every name in ALL_ORDERED_PLUGINS is known either way). */
export function isImplementedPlugin(name: string): boolean {
  return IMPLEMENTED.has(name);
}

/** A comma-separated flag value as a list of names (spaces around names and empty entries dropped). */
export function parsePluginList(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Upstream's AdmissionOptions.Validate: unknown names, and a name both enabled and disabled. */
export function admissionOptionErrors(opts: AdmissionOptions): string[] {
  const known = new Set(ALL_ORDERED_PLUGINS);
  const errors: string[] = [];
  for (const name of opts.enablePlugins ?? []) {
    if (!known.has(name)) errors.push(`enable-admission-plugins plugin ${JSON.stringify(name)} is unknown`);
  }
  for (const name of opts.disablePlugins ?? []) {
    if (!known.has(name)) errors.push(`disable-admission-plugins plugin ${JSON.stringify(name)} is unknown`);
  }
  const disabled = new Set(opts.disablePlugins ?? []);
  const both = [...new Set(opts.enablePlugins ?? [])].filter((n) => disabled.has(n)).sort();
  if (both.length > 0) {
    errors.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  }
  for (const [flag, value] of [
    ['default-not-ready-toleration-seconds', opts.defaultNotReadyTolerationSeconds],
    ['default-unreachable-toleration-seconds', opts.defaultUnreachableTolerationSeconds],
  ] as const) {
    if (value !== undefined && !Number.isSafeInteger(value)) errors.push(`--${flag} must be an integer, not ${value}`);
  }
  return errors;
}

/** The errors as one message, as upstream's aggregate prints them (one error alone, several in brackets). */
export function admissionOptionsMessage(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] as string) : `[${errors.join(', ')}]`;
}

/** The plugins that run, in upstream's order. */
export function enabledAdmissionPlugins(opts: AdmissionOptions = {}): string[] {
  const enabled = new Set(opts.enablePlugins ?? []);
  const disabled = new Set(opts.disablePlugins ?? []);
  return ALL_ORDERED_PLUGINS.filter((name) =>
    enabled.has(name) ? true : !disabled.has(name) && DEFAULT_ON_PLUGINS.has(name),
  );
}

/**
 * Builds the chain the options ask for; throws (with upstream's message) on unknown or overlapping names. Logs
 * what upstream logs at start-up, and which enabled plugins are not implemented yet.
 */
export function buildAdmissionChain(opts: AdmissionOptions, deps: AdmissionDependencies, log?: Logger): AdmissionChain {
  const errors = admissionOptionErrors(opts);
  if (errors.length > 0) throw new Error(admissionOptionsMessage(errors));
  const names = enabledAdmissionPlugins(opts);
  const plugins: AdmissionPlugin[] = [];
  const missing: string[] = [];
  for (const name of names) {
    const factory = IMPLEMENTED.get(name);
    if (factory) plugins.push(factory(opts, deps));
    else missing.push(name);
  }
  const chain = new AdmissionChain(plugins);
  if (log) {
    const mutating = chain.mutatingNames;
    const validating = chain.validatingNames;
    log.info(
      `Loaded ${mutating.length} mutating admission controller(s) successfully in the following order: ${mutating.join(',')}.`,
    );
    log.info(
      `Loaded ${validating.length} validating admission controller(s) successfully in the following order: ${validating.join(',')}.`,
    );
    if (missing.length > 0) {
      log.info('admission plugins enabled but not implemented yet; requests pass them unchecked', {
        plugins: missing.join(','),
      });
    }
  }
  return chain;
}
