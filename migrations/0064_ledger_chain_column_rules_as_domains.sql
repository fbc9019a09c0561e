-- step 64: ledger chain: the single-column rules of its links and heads, as domains
-- As step 63 for the other tables an apply writes (the reason and the way are said there): an apply inserts a link
-- per item and moves its chain's head, and each row's rules were parsed and planned again per statement.
CREATE DOMAIN chain_sequence AS bigint;
CREATE DOMAIN chain_item_table AS text;
CREATE DOMAIN sha256_digest AS bytea;

ALTER TABLE ledger_chain_links
    ALTER COLUMN seq TYPE chain_sequence,
    ALTER COLUMN item_table TYPE chain_item_table,
    ALTER COLUMN hash TYPE sha256_digest;
ALTER TABLE ledger_chain_heads
    ALTER COLUMN seq TYPE chain_sequence,
    ALTER COLUMN hash TYPE sha256_digest;

ALTER DOMAIN chain_sequence ADD CONSTRAINT chain_sequence_check CHECK (VALUE > 0);
ALTER DOMAIN chain_item_table ADD CONSTRAINT chain_item_table_check
    CHECK (VALUE IN ('ledger_entries', 'receipts', 'notifications', 'notification_redactions', 'erased_chain_rows'));
ALTER DOMAIN sha256_digest ADD CONSTRAINT sha256_digest_check CHECK (length(VALUE) = 32);

ALTER TABLE ledger_chain_links
    DROP CONSTRAINT ledger_chain_links_seq_check,
    DROP CONSTRAINT ledger_chain_links_item_table_check,
    DROP CONSTRAINT ledger_chain_links_hash_check;
ALTER TABLE ledger_chain_heads
    DROP CONSTRAINT ledger_chain_heads_seq_check,
    DROP CONSTRAINT ledger_chain_heads_hash_check;
