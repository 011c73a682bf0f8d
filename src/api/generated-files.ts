/**
 * The API tables (JSON beside this module, under generated/): written by scripts/gen-api.mjs from upstream's
 * OpenAPI document, except descriptions.json, our own words for each type and field (for `kubectl explain`). Read on first use rather than imported, so
 * that start-up pays only for the tables it needs. One place resolves their location, so a bundled build (where
 * every module shares its chunk's URL) only has to keep generated/ next to its chunks.
 */
import { readFileSync } from 'node:fs';

export function readGeneratedJson<T>(
  name: 'resources.json' | 'definitions.json' | 'protobuf.json' | 'descriptions.json',
): T {
  return JSON.parse(readFileSync(new URL(`./generated/${name}`, import.meta.url), 'utf8')) as T;
}
