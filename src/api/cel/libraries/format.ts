/**
 * Kubernetes' format library: format.dns1123Label() and the other named formats, format.named(name), and a
 * format's validate(string), which gives optional.none() for a valid value and the list of problems otherwise
 * (the API's own validation messages).
 */
import { type Environment, Optional } from '@marcbachmann/cel-js';
import { nameIsDNS1035Label, nameIsDNSLabel, nameIsDNSSubdomain } from '../../validation/name-validators.js';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from '../../validation/names.js';

export class CelFormat {
  constructor(
    readonly name: string,
    readonly check: (s: string) => string[],
  ) {}
  toString(): string {
    return this.name;
  }
}

const matching = (re: RegExp, message: string) => (s: string) => (re.test(s) ? [] : [message]);

const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label: isDNS1123Label,
  dns1123Subdomain: isDNS1123Subdomain,
  dns1035Label: isDNS1035Label,
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: (s) => nameIsDNSLabel(s, true),
  dns1123SubdomainPrefix: (s) => nameIsDNSSubdomain(s, true),
  dns1035LabelPrefix: (s) => nameIsDNS1035Label(s, true),
  labelValue: isValidLabelValue,
  uri: (s) => {
    try {
      new URL(s);
      return [];
    } catch {
      return s.startsWith('/') ? [] : ['an URI']; // Go's url.ParseRequestURI takes absolute URIs and paths.
    }
  },
  uuid: matching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'does not match the UUID format'),
  byte: matching(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'invalid base64'),
  date: matching(/^\d{4}-\d{2}-\d{2}$/, 'invalid date'),
  datetime: matching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/, 'invalid datetime'),
};

class FormatNamespace {}

export function registerFormatLibrary(env: Environment): void {
  const F = 'kubernetes.NamedFormat';
  env.registerType(F, CelFormat).registerType('FormatNamespace', FormatNamespace);
  env.registerConstant('format', 'FormatNamespace', new FormatNamespace());
  for (const [name, check] of Object.entries(FORMATS)) {
    const f = new CelFormat(name, check);
    env.registerFunction(`FormatNamespace.${name}(): ${F}`, () => f);
  }
  env
    .registerFunction(`FormatNamespace.named(string): optional<${F}>`, (_n: unknown, name: string) => {
      const check = Object.hasOwn(FORMATS, name) ? FORMATS[name] : undefined;
      return check ? Optional.of(new CelFormat(name, check)) : Optional.none();
    })
    .registerFunction(`${F}.validate(string): optional<list<string>>`, (f: CelFormat, s: string) => {
      const errs = f.check(s);
      return errs.length === 0 ? Optional.none() : Optional.of(errs);
    });
}
