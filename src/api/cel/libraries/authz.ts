/**
 * Kubernetes' authz library, the `authorizer` variable of ValidatingAdmissionPolicy:
 * `authorizer.group('apps').resource('deployments').namespace('ns').name('n').subresource('s').check('create')`,
 * `authorizer.path('/healthz').check('get')`, `authorizer.serviceAccount('ns', 'sa')` (the same questions about a
 * ServiceAccount), `authorizer.requestResource.check('verb')` (the request's own resource), and a decision's allowed(),
 * reason(), errored(), error(). The questions go to the apiserver's authorizer, which answers at once for in-memory
 * modes; an authorizer that can only answer later (the Webhook mode) gives an errored decision.
 */
import type { Environment } from '@marcbachmann/cel-js';

/** One question, as the apiserver's authorization attributes. */
export interface CelAuthzQuestion {
  user: { name: string; uid?: string; groups: string[]; extra?: Record<string, string[]> };
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface CelAuthzAnswer {
  decision: 'allow' | 'deny' | 'no-opinion';
  reason: string;
  error?: string;
}

/** What the apiserver gives the library to ask. */
export type CelAuthorize = (q: CelAuthzQuestion) => CelAuthzAnswer | Promise<CelAuthzAnswer>;

/** The request's own resource, for authorizer.requestResource. */
export interface CelRequestResource {
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/**
 * The `authorizer` value. Its one visible field is `requestResource` (upstream declares the variable
 * `authorizer.requestResource`, which CEL reads as this field); who asks and how are kept private.
 */
export class CelAuthorizer {
  readonly #user: CelAuthzQuestion['user'];
  readonly #authorize: CelAuthorize;
  readonly requestResource?: CelResourceCheck;
  constructor(user: CelAuthzQuestion['user'], authorize: CelAuthorize, request?: CelRequestResource) {
    this.#user = user;
    this.#authorize = authorize;
    if (request) {
      const r = request;
      this.requestResource = new CelResourceCheck(
        this,
        r.group,
        r.resource,
        r.subresource,
        r.namespace,
        r.name,
        r.version,
      );
    }
  }
  ask(q: Omit<CelAuthzQuestion, 'user'>): CelAuthzAnswer | Promise<CelAuthzAnswer> {
    return this.#authorize({ user: this.#user, ...q });
  }
  /** The same authorizer asking as another user. */
  as(user: CelAuthzQuestion['user']): CelAuthorizer {
    return new CelAuthorizer(user, this.#authorize);
  }
}

export class CelPathCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly path: string,
  ) {}
}

export class CelGroupCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly group: string,
  ) {}
}

export class CelResourceCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
    readonly version = '*',
  ) {}
  with(part: Partial<Pick<CelResourceCheck, 'subresource' | 'namespace' | 'name'>>): CelResourceCheck {
    return new CelResourceCheck(
      this.authz,
      this.group,
      this.resource,
      part.subresource ?? this.subresource,
      part.namespace ?? this.namespace,
      part.name ?? this.name,
      this.version,
    );
  }
}

export class CelDecision {
  constructor(readonly answer: CelAuthzAnswer) {}
}

function decide(authz: CelAuthorizer, q: Omit<CelAuthzQuestion, 'user'>): CelDecision {
  let answer: CelAuthzAnswer | Promise<CelAuthzAnswer>;
  try {
    answer = authz.ask(q);
  } catch (err) {
    return new CelDecision({ decision: 'no-opinion', reason: '', error: (err as Error).message });
  }
  if (answer instanceof Promise) {
    answer.catch(() => {});
    return new CelDecision({ decision: 'no-opinion', reason: '', error: 'the authorizer could not answer at once' });
  }
  return new CelDecision(answer);
}

export function registerAuthzLibrary(env: Environment): void {
  const A = 'kubernetes.authorization.Authorizer';
  const P = 'kubernetes.authorization.PathCheck';
  const G = 'kubernetes.authorization.GroupCheck';
  const R = 'kubernetes.authorization.ResourceCheck';
  const D = 'kubernetes.authorization.Decision';
  env
    .registerType(A, CelAuthorizer)
    .registerType(P, CelPathCheck)
    .registerType(G, CelGroupCheck)
    .registerType(R, CelResourceCheck)
    .registerType(D, CelDecision)
    .registerFunction(`${A}.path(string): ${P}`, (a: CelAuthorizer, p: string) => new CelPathCheck(a, p))
    .registerFunction(`${A}.group(string): ${G}`, (a: CelAuthorizer, g: string) => new CelGroupCheck(a, g))
    .registerFunction(`${A}.serviceAccount(string, string): ${A}`, (a: CelAuthorizer, ns: string, name: string) =>
      a.as({
        name: `system:serviceaccount:${ns}:${name}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
      }),
    )
    .registerFunction(
      `${G}.resource(string): ${R}`,
      (g: CelGroupCheck, r: string) => new CelResourceCheck(g.authz, g.group, r),
    )
    .registerFunction(`${R}.subresource(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ subresource: s }))
    .registerFunction(`${R}.namespace(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ namespace: s }))
    .registerFunction(`${R}.name(string): ${R}`, (r: CelResourceCheck, s: string) => r.with({ name: s }))
    .registerFunction(`${P}.check(string): ${D}`, (p: CelPathCheck, verb: string) =>
      decide(p.authz, {
        verb,
        isResourceRequest: false,
        path: p.path,
        apiGroup: '',
        apiVersion: '',
        namespace: '',
        resource: '',
        subresource: '',
        name: '',
      }),
    )
    .registerFunction(`${R}.check(string): ${D}`, (r: CelResourceCheck, verb: string) =>
      decide(r.authz, {
        verb,
        isResourceRequest: true,
        path: '',
        apiGroup: r.group,
        apiVersion: r.version,
        namespace: r.namespace,
        resource: r.resource,
        subresource: r.subresource,
        name: r.name,
      }),
    )
    .registerFunction(`${D}.allowed(): bool`, (d: CelDecision) => d.answer.decision === 'allow')
    .registerFunction(`${D}.reason(): string`, (d: CelDecision) => d.answer.reason)
    .registerFunction(`${D}.errored(): bool`, (d: CelDecision) => d.answer.error !== undefined)
    .registerFunction(`${D}.error(): string`, (d: CelDecision) => d.answer.error ?? '');
}
