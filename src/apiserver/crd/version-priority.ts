/**
 * Kubernetes' version ordering (apimachinery's CompareKubeAwareVersionStrings): v2 > v1 > v1beta2 > v1beta1 >
 * v1alpha1 > anything else, which sorts alphabetically. Used to pick a group's preferred version and the version a
 * deprecation warning points to.
 */
const KUBE = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** Positive when a comes before b (is more preferred), negative when after, 0 when equal. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ma = KUBE.exec(a);
  const mb = KUBE.exec(b);
  if (!ma && !mb) return a < b ? 1 : a > b ? -1 : 0;
  if (!ma) return -1;
  if (!mb) return 1;
  const stage = (m: RegExpExecArray) => (m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0);
  if (stage(ma) !== stage(mb)) return stage(ma) - stage(mb);
  if (ma[1] !== mb[1]) return Number(ma[1]) - Number(mb[1]);
  return Number(ma[3] ?? 0) - Number(mb[3] ?? 0);
}

/** Versions most preferred first. */
export function sortByKubeAwareVersion(versions: readonly string[]): string[] {
  return [...versions].sort((x, y) => compareKubeAwareVersions(y, x));
}
