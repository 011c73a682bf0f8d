/**
 * Whether a container's image is a reference a runtime can pull, checked as the kubelet checks it before anything
 * else (its applyDefaultImageTag parses the image with the Docker reference grammar, normalising a short name to
 * docker.io/library/…). The API server accepts any non-blank image, so `NGINX` or `nginx::1` reach the node and fail
 * there with InvalidImageName. The answer is the parser's error text, which the kubelet puts in its message.
 */

import { BoundedMemo } from '../util/bounded-memo.js';

// The grammar of a Docker image reference: [domain[:port]/]path[:tag][@digest].
const ALPHANUMERIC = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_NAME = `${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*`;
const HOST = `(?:${DOMAIN_NAME}|\\[(?:[a-fA-F0-9:]+)\\])`;
const DOMAIN_AND_PORT = `${HOST}(?::[0-9]+)?`;
const PATH_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const NAME = `(?:${DOMAIN_AND_PORT}/)?${REMOTE_NAME}`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}';

const REFERENCE = new RegExp(`^(${NAME})(?::${TAG})?(?:@(${DIGEST}))?$`);
const ANCHORED_NAME = new RegExp(`^(?:${DOMAIN_AND_PORT}/)?(${REMOTE_NAME})$`);
/** A bare image ID, which may not stand for a name. */
const IDENTIFIER = /^[a-f0-9]{64}$/;
/** What any digest looks like, known algorithm or not. */
const ANY_DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
/** The digest algorithms a kubelet knows, with the length of their hex encoding. */
const DIGEST_HEX_LENGTH: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
const MAX_PATH_LENGTH = 255;

const DEFAULT_DOMAIN = 'docker.io';
const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
const OFFICIAL_PREFIX = 'library/';

/** Splits a reference into its registry and the rest, as a short name is read: `nginx` is docker.io/library/nginx. */
function splitDomain(image: string): [string, string] {
  const slash = image.indexOf('/');
  if (slash < 0) return [DEFAULT_DOMAIN, OFFICIAL_PREFIX + image];
  const first = image.slice(0, slash);
  const rest = image.slice(slash + 1);
  let domain: string;
  let remote: string;
  // In the parser's order: the legacy Docker Hub name before anything with a dot.
  if (first === 'localhost') [domain, remote] = [first, rest];
  else if (first === LEGACY_DEFAULT_DOMAIN) [domain, remote] = [DEFAULT_DOMAIN, rest];
  else if (/[.:]/.test(first) || first.toLowerCase() !== first) [domain, remote] = [first, rest];
  else [domain, remote] = [DEFAULT_DOMAIN, image];
  if (domain === DEFAULT_DOMAIN && !remote.includes('/')) remote = OFFICIAL_PREFIX + remote;
  return [domain, remote];
}

function digestError(digest: string): string | undefined {
  const colon = digest.indexOf(':');
  if (colon <= 0 || colon + 1 === digest.length) return 'invalid checksum digest format';
  const length = DIGEST_HEX_LENGTH[digest.slice(0, colon)];
  if (length === undefined) {
    return ANY_DIGEST.test(digest) ? 'unsupported digest algorithm' : 'invalid checksum digest format';
  }
  const hex = digest.slice(colon + 1);
  if (hex.length !== length) return 'invalid checksum digest length';
  return /^[a-f0-9]+$/.test(hex) ? undefined : 'invalid checksum digest format';
}

/**
 * The answer for each image seen (every container start asks, and a node starts the same few images over and over);
 * '' for a valid one. Cleared when full, so a stream of distinct images cannot make it grow without end.
 */
const answers = new BoundedMemo<string, string>(1024);

/** Why image is no valid reference (the reference parser's words), or undefined when it is one. */
export function imageReferenceError(image: string): string | undefined {
  const answer = answers.get(image) ?? answers.remember(image, parse(image) ?? '');
  return answer === '' ? undefined : answer;
}

function parse(image: string): string | undefined {
  if (IDENTIFIER.test(image)) return `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`;
  const [domain, remainder] = splitDomain(image);
  const colon = remainder.indexOf(':');
  const remote = colon < 0 ? remainder : remainder.slice(0, colon);
  if (remote.toLowerCase() !== remote) return `invalid reference format: repository name (${remote}) must be lowercase`;
  const full = `${domain}/${remainder}`;
  const match = REFERENCE.exec(full);
  if (!match) {
    return REFERENCE.test(full.toLowerCase()) ? 'repository name must be lowercase' : 'invalid reference format';
  }
  const path = ANCHORED_NAME.exec(match[1] ?? '')?.[1] ?? match[1] ?? '';
  if (path.length > MAX_PATH_LENGTH) return `repository name must not be more than ${MAX_PATH_LENGTH} characters`;
  return match[2] === undefined ? undefined : digestError(match[2]);
}
