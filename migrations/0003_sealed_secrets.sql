-- step 3: apps' secrets sealed at rest
-- The apps' secrets sealed with AES-256-GCM under a SubLedger secret key (docs/operations.md, "Secrets at
-- rest"): `*_sealed` is the nonce, ciphertext and tag; `*_key_id` names the key (a fingerprint of it); the
-- associated data is the field and the bundle id, so a sealed value opens only as the secret it was sealed
-- as. The plaintext columns of step 1 stay for rows written before this step (and for deployments that
-- explicitly store secrets unsealed); `subledger secrets rotate-key` seals them and empties them. A field
-- is never both sealed and plaintext.
ALTER TABLE apps
    ADD COLUMN shared_secret_sealed bytea,
    ADD COLUMN shared_secret_key_id text,
    ADD COLUMN server_api_private_key_sealed bytea,
    ADD COLUMN server_api_private_key_key_id text,
    ADD CONSTRAINT apps_shared_secret_sealed_names_its_key
        CHECK ((shared_secret_sealed IS NULL) = (shared_secret_key_id IS NULL)),
    ADD CONSTRAINT apps_shared_secret_sealed_or_plaintext
        CHECK (shared_secret IS NULL OR shared_secret_sealed IS NULL),
    ADD CONSTRAINT apps_server_api_private_key_sealed_names_its_key
        CHECK ((server_api_private_key_sealed IS NULL) = (server_api_private_key_key_id IS NULL)),
    ADD CONSTRAINT apps_server_api_private_key_sealed_or_plaintext
        CHECK (server_api_private_key IS NULL OR server_api_private_key_sealed IS NULL);
