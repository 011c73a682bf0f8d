/**
 * kube-controller-manager's serviceaccount-token-controller (upstream's serviceaccount.TokensController): a Secret
 * of type kubernetes.io/service-account-token that names a ServiceAccount in its
 * `kubernetes.io/service-account.name` annotation gets `token` (a legacy, non-expiring JWT with issuer
 * `kubernetes/serviceaccount`, signed with --service-account-private-key-file's key), `ca.crt` (--root-ca-file)
 * and `namespace`, and the account's uid in `kubernetes.io/service-account.uid`. A token Secret whose account is
 * gone (or was replaced: another uid) is deleted, also when the account is deleted.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { Lister } from '../../client/cache/listers.js';
import type { SharedIndexInformer } from '../../client/cache/shared-informer.js';
import { DeletedFinalStateUnknown } from '../../client/cache/store.js';
import { waitForCacheSync } from '../../client/cache/wait-for-cache-sync.js';
import { ApiError, isNotFound, type KubeObject } from '../../client/types.js';
import { createRateLimitingQueue, type RateLimitingQueue } from '../../client/workqueue/rate-limiting.js';
import type { Controller, ControllerContext, ControllerDescriptor } from '../context.js';
import { runWorkers } from '../worker.js';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_KEY = 'kubernetes.io/service-account.name';
export const SERVICE_ACCOUNT_UID_KEY = 'kubernetes.io/service-account.uid';
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

const SECRETS = { group: '', version: 'v1', resource: 'secrets' } as const;
const SERVICE_ACCOUNTS = { group: '', version: 'v1', resource: 'serviceaccounts' } as const;

/** Signs legacy ServiceAccount tokens as upstream's JWTTokenGenerator(LegacyIssuer, key) does. */
export class LegacyTokenGenerator {
  private readonly key: KeyObject;
  private readonly alg: string;
  private readonly kid: string;

  constructor(privateKeyPem: string) {
    this.key = createPrivateKey(privateKeyPem);
    const curve = this.key.asymmetricKeyDetails?.namedCurve;
    this.alg =
      this.key.asymmetricKeyType === 'rsa'
        ? 'RS256'
        : curve === 'prime256v1'
          ? 'ES256'
          : curve === 'secp384r1'
            ? 'ES384'
            : curve === 'secp521r1'
              ? 'ES512'
              : '';
    if (this.alg === '') throw new Error('the service account key must be RSA or ECDSA (P-256, P-384, P-521)');
    // Upstream's key id: the unpadded base64url SHA-256 of the public key's DER.
    const der = createPublicKey(this.key).export({ type: 'spki', format: 'der' });
    this.kid = createHash('sha256').update(der).digest('base64url');
  }

  /** Upstream's LegacyClaims for the account and secret. */
  generate(serviceAccount: KubeObject, secret: KubeObject): Promise<string> {
    const ns = serviceAccount.metadata.namespace ?? '';
    const name = serviceAccount.metadata.name ?? '';
    return new SignJWT({
      'kubernetes.io/serviceaccount/namespace': ns,
      'kubernetes.io/serviceaccount/secret.name': secret.metadata.name ?? '',
      'kubernetes.io/serviceaccount/service-account.name': name,
      'kubernetes.io/serviceaccount/service-account.uid': serviceAccount.metadata.uid ?? '',
    })
      .setProtectedHeader({ alg: this.alg, kid: this.kid })
      .setIssuer(LEGACY_ISSUER)
      .setSubject(`system:serviceaccount:${ns}:${name}`)
      .sign(this.key);
  }
}

const key = (ns: string, name: string) => `${ns}/${name}`;
const isConflict = (err: unknown) => err instanceof ApiError && err.code === 409;

export class TokensController implements Controller {
  readonly queue: RateLimitingQueue<string>;
  private readonly secrets: SharedIndexInformer;
  private readonly accounts: SharedIndexInformer;
  private readonly secretLister: Lister;
  private readonly accountLister: Lister;
  private readonly rootCa: string | undefined;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly generator: LegacyTokenGenerator,
  ) {
    this.queue = createRateLimitingQueue<string>({ clock: ctx.clock, name: 'serviceaccount_tokens_secret' });
    this.secrets = ctx.informers.forGroupVersionResource(SECRETS);
    this.accounts = ctx.informers.forGroupVersionResource(SERVICE_ACCOUNTS);
    this.secretLister = new Lister(this.secrets.getIndexer());
    this.accountLister = new Lister(this.accounts.getIndexer());
    this.rootCa = ctx.options.rootCaPem?.trim() ? ctx.options.rootCaPem : undefined;
    const onSecret = (obj: KubeObject | DeletedFinalStateUnknown) => {
      const secret = obj instanceof DeletedFinalStateUnknown ? (obj.obj as KubeObject | undefined) : obj;
      if (secret?.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return;
      this.queue.add(key(secret.metadata.namespace ?? '', secret.metadata.name ?? ''));
    };
    this.secrets.addEventHandler({ onAdd: onSecret, onUpdate: (_o, s) => onSecret(s) });
    // A deleted or replaced account: its token secrets are looked at again (and go).
    const onAccount = (obj: KubeObject | DeletedFinalStateUnknown) => {
      const sa = obj instanceof DeletedFinalStateUnknown ? (obj.obj as KubeObject | undefined) : obj;
      if (!sa) return;
      for (const secret of this.secretLister.namespaced(sa.metadata.namespace ?? '').list()) {
        if (
          secret.type === SERVICE_ACCOUNT_TOKEN_TYPE &&
          secret.metadata.annotations?.[SERVICE_ACCOUNT_NAME_KEY] === sa.metadata.name
        ) {
          this.queue.add(key(secret.metadata.namespace ?? '', secret.metadata.name ?? ''));
        }
      }
    };
    this.accounts.addEventHandler({ onAdd: onAccount, onUpdate: (_o, sa) => onAccount(sa), onDelete: onAccount });
  }

  async run(): Promise<void> {
    const { signal, logger } = this.ctx;
    logger.info('Starting service account token controller');
    try {
      if (!(await waitForCacheSync(signal, this.secrets, this.accounts))) {
        this.queue.shutDown();
        return;
      }
      await runWorkers({
        queue: this.queue,
        workers: this.ctx.options.concurrentServiceaccountTokenSyncs,
        sync: (k) => this.sync(k),
        signal,
        logger,
      });
    } finally {
      logger.info('Shutting down service account token controller');
    }
  }

  /** The account from the cache, else from the apiserver (a new account may not have reached the cache yet). */
  private async serviceAccount(ns: string, name: string): Promise<KubeObject | undefined> {
    const cached = this.accountLister.namespaced(ns).get(name);
    if (cached) return cached;
    try {
      return await this.ctx.client.serviceAccounts(ns).get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Upstream's syncSecret for one token Secret. */
  async sync(k: string): Promise<void> {
    const [ns = '', name = ''] = k.split('/');
    const secret = this.secretLister.namespaced(ns).get(name);
    if (!secret || secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return;
    const annotations = secret.metadata.annotations ?? {};
    const saName = annotations[SERVICE_ACCOUNT_NAME_KEY] ?? '';
    const saUid = annotations[SERVICE_ACCOUNT_UID_KEY] ?? '';
    const sa = saName ? await this.serviceAccount(ns, saName) : undefined;
    const client = this.ctx.client.secrets(ns);
    if (!sa || (saUid !== '' && sa.metadata.uid !== saUid)) {
      try {
        await client.delete(name, { preconditions: { uid: secret.metadata.uid ?? '' } });
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
      return;
    }
    const data = { ...((secret.data as Record<string, string> | undefined) ?? {}) };
    const decoded = (field: string) => Buffer.from(data[field] ?? '', 'base64').toString('utf8');
    const needsCa = this.rootCa !== undefined && decoded('ca.crt') !== this.rootCa;
    const needsNamespace = !data.namespace;
    const needsToken = !data.token;
    if (!needsCa && !needsNamespace && !needsToken) return;
    const next = structuredClone(secret);
    if (needsCa && this.rootCa !== undefined) data['ca.crt'] = Buffer.from(this.rootCa).toString('base64');
    if (needsNamespace) data.namespace = Buffer.from(ns).toString('base64');
    if (needsToken) data.token = Buffer.from(await this.generator.generate(sa, secret)).toString('base64');
    next.data = data;
    next.metadata.annotations = {
      ...annotations,
      [SERVICE_ACCOUNT_NAME_KEY]: sa.metadata.name ?? '',
      [SERVICE_ACCOUNT_UID_KEY]: sa.metadata.uid ?? '',
    };
    try {
      await client.update(next);
    } catch (err) {
      // The secret changed or went meanwhile: its next event brings it back.
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }
}

/** No ServiceAccount of its own: upstream runs it with the root client, the controller manager's identity. */
export const serviceAccountTokenController: ControllerDescriptor = {
  name: 'serviceaccount-token-controller',
  create(ctx): Controller {
    const pem = ctx.options.serviceAccountPrivateKeyPem;
    if (!pem) {
      return {
        async run() {
          ctx.logger.info('Not starting serviceaccount-token-controller: no --service-account-private-key-file');
        },
      };
    }
    return new TokensController(ctx, new LegacyTokenGenerator(pem));
  },
};
