/**
 * Loads a CommonJS package when it is first needed instead of at start-up, for large libraries that most runs never
 * use (a quarter of a megabyte of code costs start-up time to compile even if nothing calls it). The package is
 * resolved from here, so from wheelhouse's own node_modules, also in the bundled build (which leaves it out).
 */
import { createRequire } from 'node:module';

export const requireLazily: (id: string) => unknown = createRequire(import.meta.url);
