-- Custom SQL migration (hand-written, like 0001-0014): the ledger tokens
-- sealed at rest (docs/sync.md "Tokens at rest"). access_token and
-- refresh_token keep their text columns and hold sealed values
-- (`v1:<keyId>:<nonce>:<ciphertext+tag>`, AES-256-GCM, src/ledger/seal.ts);
-- secrets_key_id names the key they are sealed under, so a key rotation finds
-- the rows still under an older key without opening them. Rows from before
-- this migration keep null here and their plain tokens until the first start
-- of a process that holds the key seals them (sealPlainTokens).
ALTER TABLE "ledger_connections" ADD COLUMN IF NOT EXISTS "secrets_key_id" text;
