/**
 * How controllers recognise a namespace that is going away, in the objects they read and in the apiserver's
 * refusals (controllers that create content in every namespace skip those).
 */
import { ApiError, type KubeObject } from '../../client/types.js';

/** upstream's v1.NamespaceTerminatingCause: the cause type of a create refused in a terminating namespace. */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/** Whether a namespace's phase is Active (a namespace being deleted is Terminating). */
export function isNamespaceActive(ns: KubeObject): boolean {
  return (ns.status as { phase?: string } | undefined)?.phase === 'Active';
}

/** Whether err is the apiserver refusing new content because the namespace is being terminated. */
export function isNamespaceTerminatingError(err: unknown): boolean {
  if (!(err instanceof ApiError) || err.code !== 403) return false;
  if (err.status.details?.causes?.some((c) => c.type === NAMESPACE_TERMINATING_CAUSE)) return true;
  return err.message.includes('because it is being terminated');
}
