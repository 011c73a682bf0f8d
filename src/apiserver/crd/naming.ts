/**
 * Upstream's NamingConditionController decision for one CRD: which of its requested names it may have, given the
 * names the other CRDs of its group were accepted with, and the NamesAccepted and Established conditions that
 * follow.
 */
import { jsonEqual } from '../registry/object.js';
import { type CRDCondition, type CRDNames, type CustomResourceDefinition, findCondition } from './types.js';

export interface NamingResult {
  acceptedNames: CRDNames;
  namesAccepted: CRDCondition;
  established: CRDCondition;
}

/** The accepted resource names (plural, singular, short names) and kinds (kind, listKind) of CRDs of one group. */
export function usedNames(others: readonly CustomResourceDefinition[]): { resources: Set<string>; kinds: Set<string> } {
  const resources = new Set<string>();
  const kinds = new Set<string>();
  for (const crd of others) {
    const names = crd.status?.acceptedNames ?? {};
    for (const n of [names.plural, names.singular, ...(names.shortNames ?? [])]) if (n) resources.add(n);
    for (const n of [names.kind, names.listKind]) if (n) kinds.add(n);
  }
  return { resources, kinds };
}

function conflict(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  const name = requested ?? '';
  if (name === (accepted ?? '') || !used.has(name)) return undefined;
  return `"${name}" is already in use`;
}

/** `others`: the other CRDs of the same group. */
export function calculateNames(
  crd: CustomResourceDefinition,
  others: readonly CustomResourceDefinition[],
): NamingResult {
  const { resources, kinds } = usedNames(others);
  const requested = crd.spec.names ?? {};
  const accepted = crd.status?.acceptedNames ?? {};
  const next: CRDNames = { ...accepted };
  let failure: { reason: string; message: string } | undefined;
  const check = (field: 'plural' | 'singular' | 'kind' | 'listKind', used: Set<string>, reason: string) => {
    const err = conflict(requested[field], accepted[field], used);
    if (err) failure = { reason, message: err };
    else if (requested[field] !== undefined) next[field] = requested[field];
  };
  check('plural', resources, 'PluralConflict');
  check('singular', resources, 'SingularConflict');
  if (!jsonEqual(requested.shortNames ?? [], accepted.shortNames ?? [])) {
    const mine = new Set(accepted.shortNames ?? []);
    const errs = (requested.shortNames ?? [])
      .filter((s) => !mine.has(s))
      .map((s) => conflict(s, '', resources))
      .filter((e): e is string => e !== undefined);
    if (errs.length > 0) {
      failure = {
        reason: 'ShortNamesConflict',
        message: errs.length === 1 ? (errs[0] as string) : `[${errs.join(', ')}]`,
      };
    } else if (requested.shortNames !== undefined) next.shortNames = requested.shortNames;
    else delete next.shortNames;
  }
  check('kind', kinds, 'KindConflict');
  check('listKind', kinds, 'ListKindConflict');
  if (requested.categories !== undefined) next.categories = requested.categories;
  else delete next.categories;
  const namesAccepted: CRDCondition = failure
    ? { type: 'NamesAccepted', status: 'False', ...failure }
    : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  let established: CRDCondition = findCondition(crd, 'Established') ?? {
    type: 'Established',
    status: 'False',
    reason: 'NotAccepted',
    message: 'not all names are accepted',
  };
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = {
      type: 'Established',
      status: 'False',
      reason: 'Installing',
      message: 'the initial names have been accepted',
    };
  }
  return { acceptedNames: next, namesAccepted, established };
}
