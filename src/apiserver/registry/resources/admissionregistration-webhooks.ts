/**
 * admissionregistration.k8s.io/v1 MutatingWebhookConfigurations and ValidatingWebhookConfigurations: cluster-scoped
 * lists of admission webhooks, defaulted as upstream's v1 defaults do (failurePolicy Fail, matchPolicy Equivalent,
 * namespaceSelector and objectSelector `{}`, timeoutSeconds 10, rule scope `*`, service port 443, and for mutating
 * webhooks reinvocationPolicy Never; sideEffects and admissionReviewVersions have no default in v1) and validated as
 * admissionregistration-webhooks-validation.ts says. `kubectl get` prints NAME, WEBHOOKS, AGE.
 */
import { age } from '../../printers/duration.js';
import { ageColumn, nameColumn, type Printer } from '../../printers/table.js';
import type { KubeObject } from '../object.js';
import {
  validateWebhookConfiguration,
  validateWebhookConfigurationUpdate,
} from './admissionregistration-webhooks-validation.js';
import { type Builtin, builtin } from './common.js';
import { column } from './groups-columns.js';
import { defaultValue, list, type Rec, rec, records, unset } from './groups-fields.js';

const GROUP = 'admissionregistration.k8s.io';

function defaultWebhook(hook: Rec, mutating: boolean): void {
  defaultValue(hook, 'failurePolicy', 'Fail');
  defaultValue(hook, 'matchPolicy', 'Equivalent');
  defaultValue(hook, 'namespaceSelector', {});
  defaultValue(hook, 'objectSelector', {});
  defaultValue(hook, 'timeoutSeconds', 10);
  if (mutating) defaultValue(hook, 'reinvocationPolicy', 'Never');
  for (const rule of records(hook.rules)) defaultValue(rule, 'scope', '*');
  const service = rec(hook.clientConfig).service;
  if (!unset(service) && typeof service === 'object') defaultValue(service as Rec, 'port', 443);
}

function defaultConfiguration(obj: KubeObject, mutating: boolean): void {
  for (const hook of records(obj.webhooks)) defaultWebhook(hook, mutating);
}

const printer: Printer = {
  columns: [
    nameColumn,
    column('Webhooks', 'Webhooks indicates the number of webhooks in the configuration.', { type: 'integer' }),
    ageColumn,
  ],
  cells: (o, now) => [o.metadata.name, list(o.webhooks).length, age(o.metadata.creationTimestamp, now)],
};

function webhookConfigurations(resource: string, mutating: boolean): Builtin {
  return builtin({
    group: GROUP,
    version: 'v1',
    resource,
    strategy: {
      default: (obj) => defaultConfiguration(obj, mutating),
      validate: (obj) => validateWebhookConfiguration(obj, mutating),
      validateUpdate: (obj, old) => validateWebhookConfigurationUpdate(obj, old, mutating),
    },
    printer,
  });
}

export const mutatingwebhookconfigurations: Builtin = webhookConfigurations('mutatingwebhookconfigurations', true);
export const validatingwebhookconfigurations: Builtin = webhookConfigurations('validatingwebhookconfigurations', false);
