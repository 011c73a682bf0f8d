export {
  LEGACY_ISSUER,
  LegacyTokenGenerator,
  SERVICE_ACCOUNT_NAME_KEY,
  SERVICE_ACCOUNT_TOKEN_TYPE,
  SERVICE_ACCOUNT_UID_KEY,
  serviceAccountTokenController,
  TokensController,
} from './tokens-controller.js';
