/**
 * kube-controller-manager's controller names (v1.33), the older short names it still accepts, and the
 * `--controllers` selection rule. Names are IDs: the same strings upstream uses, so flags written for
 * kube-controller-manager work here.
 */

/** Every controller upstream knows, by canonical name, with its accepted aliases. */
export const KNOWN_CONTROLLERS: Readonly<Record<string, readonly string[]>> = {
  'serviceaccount-token-controller': ['serviceaccount-token'],
  'endpoints-controller': ['endpoint'],
  'endpointslice-controller': ['endpointslice'],
  'endpointslice-mirroring-controller': ['endpointslicemirroring'],
  'replicationcontroller-controller': ['replicationcontroller'],
  'pod-garbage-collector-controller': ['podgc'],
  'resourcequota-controller': ['resourcequota'],
  'namespace-controller': ['namespace'],
  'serviceaccount-controller': ['serviceaccount'],
  'garbage-collector-controller': ['garbagecollector'],
  'daemonset-controller': ['daemonset'],
  'job-controller': ['job'],
  'deployment-controller': ['deployment'],
  'replicaset-controller': ['replicaset'],
  'horizontal-pod-autoscaler-controller': ['horizontalpodautoscaling'],
  'disruption-controller': ['disruption'],
  'statefulset-controller': ['statefulset'],
  'cronjob-controller': ['cronjob'],
  'certificatesigningrequest-signing-controller': ['csrsigning'],
  'certificatesigningrequest-approving-controller': ['csrapproving'],
  'certificatesigningrequest-cleaner-controller': ['csrcleaner'],
  'ttl-controller': ['ttl'],
  'bootstrap-signer-controller': ['bootstrapsigner'],
  'token-cleaner-controller': ['tokencleaner'],
  'node-ipam-controller': ['nodeipam'],
  'node-lifecycle-controller': ['nodelifecycle'],
  'taint-eviction-controller': [],
  'persistentvolume-binder-controller': ['persistentvolume-binder'],
  'persistentvolume-attach-detach-controller': ['attachdetach'],
  'persistentvolume-expander-controller': ['persistentvolume-expander'],
  'clusterrole-aggregation-controller': ['clusterrole-aggregation'],
  'persistentvolumeclaim-protection-controller': ['pvc-protection'],
  'persistentvolume-protection-controller': ['pv-protection'],
  'ttl-after-finished-controller': ['ttl-after-finished'],
  'root-ca-certificate-publisher-controller': ['root-ca-cert-publisher'],
  'ephemeral-volume-controller': ['ephemeral-volume'],
  'storageversion-garbage-collector-controller': ['storage-version-gc'],
  'resourceclaim-controller': ['resource-claim-controller'],
  'legacy-serviceaccount-token-cleaner-controller': ['legacy-service-account-token-cleaner'],
  'validatingadmissionpolicy-status-controller': [],
  'service-cidr-controller': [],
  'storage-version-migrator-controller': [],
};

/** Known controllers that `*` does not turn on (upstream: the bootstrap token ones). */
export const DISABLED_BY_DEFAULT: ReadonlySet<string> = new Set([
  'bootstrap-signer-controller',
  'token-cleaner-controller',
]);

const ALIASES: ReadonlyMap<string, string> = new Map(
  Object.entries(KNOWN_CONTROLLERS).flatMap(([name, aliases]) => aliases.map((a) => [a, name] as const)),
);

/** The canonical name of a controller name or alias, or undefined when it is not a known controller. */
export function canonicalControllerName(name: string): string | undefined {
  if (Object.hasOwn(KNOWN_CONTROLLERS, name)) return name;
  return ALIASES.get(name);
}

/**
 * Checks a `--controllers` list as upstream validates it: every entry is `*`, a known name or alias, or one of
 * those prefixed with `-`. Answers the error messages.
 */
export function validateControllerSelection(selection: readonly string[]): string[] {
  const errors: string[] = [];
  for (const entry of selection) {
    if (entry === '*') continue;
    const name = entry.startsWith('-') ? entry.slice(1) : entry;
    if (!canonicalControllerName(name)) errors.push(`"${name}" is not in the list of known controllers`);
  }
  return errors;
}

/**
 * Whether `--controllers` turns a controller on, as upstream decides: an explicit `name` or `-name` wins;
 * otherwise `*` turns on everything that is not disabled by default; without `*` only what is named runs.
 */
export function isControllerEnabled(name: string, selection: readonly string[]): boolean {
  let star = false;
  for (const entry of selection) {
    const negated = entry.startsWith('-');
    const bare = negated ? entry.slice(1) : entry;
    if (bare === '*') {
      if (!negated) star = true;
      continue;
    }
    if (canonicalControllerName(bare) === name) return !negated;
  }
  return star && !DISABLED_BY_DEFAULT.has(name);
}
