/**
 * NamespaceLifecycle (upstream's k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle), a mutating plugin:
 * - `default`, `kube-system` and `kube-public` may not be deleted;
 * - a namespaced object may not be created or updated in a namespace that does not exist (404 for the namespace);
 * - nothing new may be created in a namespace that is terminating (403 with a `NamespaceTerminating` cause, which
 *   the namespace and garbage-collector controllers recognise);
 * - deletes of namespaced objects, writes of namespaces themselves and LocalSubjectAccessReviews always pass.
 * The namespace is read from the watch cache, and from storage when the cache does not have it or a delete of it
 * went through this server a moment ago (upstream's force-live-lookup list, kept 30 s).
 */
import { statusErrors } from '../../../api/status-error.js';
import type { Clock } from '../../../util/clock.js';
import { realClock } from '../../../util/clock.js';
import type { KubeObject } from '../../registry/object.js';
import { type AdmissionAttributes, type AdmissionPlugin, admissionObjectName } from '../types.js';
import type { ClusterReader } from './cluster-reader.js';

export const NAMESPACE_LIFECYCLE = 'NamespaceLifecycle';

/** The namespaces upstream refuses to delete. */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

const NAMESPACES = { group: '', version: 'v1', resource: 'namespaces' };
const FORCE_LIVE_LOOKUP_MS = 30_000;
/** Resources that reveal nothing about a namespace by being refused, so they are never refused for it. */
/** Resources of authorization.k8s.io that are answered, never stored, in a namespace that may not exist. */
const ACCESS_REVIEWS = new Set(['localsubjectaccessreviews']);

function isNamespaceKind(attrs: AdmissionAttributes): boolean {
  return attrs.kind.group === '' && attrs.kind.kind === 'Namespace';
}

/** Terminating: the phase a delete sets (a deletionTimestamp says the same before the phase is seen). */
function isTerminating(ns: KubeObject): boolean {
  return (
    ns.metadata.deletionTimestamp !== undefined ||
    (ns.status as { phase?: unknown } | undefined)?.phase === 'Terminating'
  );
}

export function namespaceLifecycle(reader: ClusterReader, clock: Clock = realClock): AdmissionPlugin {
  // Namespaces deleted through this server lately: the cache may still show them Active.
  const recentlyDeleted = new Map<string, number>();
  const forceLive = (name: string): boolean => {
    const until = recentlyDeleted.get(name);
    if (until === undefined) return false;
    if (until > clock.now()) return true;
    recentlyDeleted.delete(name);
    return false;
  };
  /** A create in a terminating namespace is refused. */
  function check(attrs: AdmissionAttributes, ns: Readonly<KubeObject>): void {
    if (attrs.operation !== 'CREATE' || !isTerminating(ns)) return;
    throw statusErrors.forbidden(
      { group: attrs.resource.group, resource: attrs.resource.resource },
      admissionObjectName(attrs),
      `unable to create new content in namespace ${attrs.namespace} because it is being terminated`,
      [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${attrs.namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ],
    );
  }

  /** The namespace from the cache, or from storage when the cache lacks it or may be behind. */
  async function lookUpAndCheck(attrs: AdmissionAttributes): Promise<void> {
    let ns: Readonly<KubeObject> | undefined = await reader.shared(NAMESPACES, '', attrs.namespace);
    if (!ns || (forceLive(attrs.namespace) && !isTerminating(ns))) {
      ns = await reader.live(NAMESPACES, '', attrs.namespace);
      if (!ns) throw statusErrors.notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
    }
    check(attrs, ns);
  }

  return {
    name: NAMESPACE_LIFECYCLE,
    handles: (op) => op === 'CREATE' || op === 'UPDATE' || op === 'DELETE',
    admit(attrs) {
      if (attrs.operation === 'DELETE' && isNamespaceKind(attrs) && IMMORTAL_NAMESPACES.has(attrs.name)) {
        throw statusErrors.forbidden(
          { group: attrs.resource.group, resource: attrs.resource.resource },
          attrs.name,
          'this namespace may not be deleted',
        );
      }
      if (isNamespaceKind(attrs)) {
        if (attrs.operation === 'DELETE') recentlyDeleted.set(attrs.name, clock.now() + FORCE_LIVE_LOOKUP_MS);
        return;
      }
      if (attrs.namespace === '' || attrs.operation === 'DELETE') return;
      if (attrs.resource.group === 'authorization.k8s.io' && ACCESS_REVIEWS.has(attrs.resource.resource)) return;
      // Without waiting when the cache has the namespace and need not be doubted: the case of nearly every request.
      const cached = reader.sharedNow(NAMESPACES, '', attrs.namespace);
      if (!cached || (recentlyDeleted.size > 0 && forceLive(attrs.namespace) && !isTerminating(cached))) {
        return lookUpAndCheck(attrs);
      }
      check(attrs, cached);
    },
  };
}
