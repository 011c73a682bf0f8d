import type { WebhookAuthorizerOptions } from '../apiserver/authz/webhook/webhook-authorizer.js';
import { durationFlag, UsageError } from './storage-flags.js';

/** kube-apiserver's flags of the Webhook authorization mode, with upstream's names. */
export const authorizationWebhookFlagSpec = {
  'authorization-webhook-config-file': { type: 'string' },
  'authorization-webhook-version': { type: 'string' },
  'authorization-webhook-cache-authorized-ttl': { type: 'string' },
  'authorization-webhook-cache-unauthorized-ttl': { type: 'string' },
} as const;

export const authorizationWebhookFlagsHelp = `  --authorization-webhook-config-file FILE  kubeconfig of the SubjectAccessReview service (mode Webhook)
  --authorization-webhook-version v1|v1beta1    (default v1beta1)
  --authorization-webhook-cache-authorized-ttl D    how long allowed answers are kept (default 5m)
  --authorization-webhook-cache-unauthorized-ttl D  how long other answers are kept (default 30s)`;

/**
 * The Webhook mode's options for the --authorization-mode list, checked as kube-apiserver checks them: the mode
 * needs the config file, and the config file needs the mode.
 */
export function authorizationWebhookOptionsOf(
  values: Record<string, unknown>,
  modes: string[] | undefined,
): { webhook?: WebhookAuthorizerOptions } {
  const str = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const file = str('authorization-webhook-config-file');
  const webhookMode = modes?.includes('Webhook') ?? false;
  if (webhookMode && !file) {
    throw new UsageError("--authorization-mode: authorization-mode Webhook's authorization config file not passed");
  }
  if (file && !webhookMode) {
    throw new UsageError('cannot specify --authorization-webhook-config-file without mode Webhook');
  }
  if (!file) return {};
  const version = str('authorization-webhook-version');
  const authorized = str('authorization-webhook-cache-authorized-ttl');
  const unauthorized = str('authorization-webhook-cache-unauthorized-ttl');
  return {
    webhook: {
      configFile: file,
      ...(version ? { version } : {}),
      ...(authorized !== undefined
        ? { authorizedTTLMs: durationFlag('authorization-webhook-cache-authorized-ttl', authorized, 0) }
        : {}),
      ...(unauthorized !== undefined
        ? { unauthorizedTTLMs: durationFlag('authorization-webhook-cache-unauthorized-ttl', unauthorized, 0) }
        : {}),
    },
  };
}
