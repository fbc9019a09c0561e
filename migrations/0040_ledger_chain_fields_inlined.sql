-- step 40: ledger chain: the text and timestamp fields declared stable, so that PostgreSQL inlines them
-- The field encodings of step 24 for `text` (`convert_to`, which depends on the server's encoding) and `timestamptz`
-- (`extract(epoch …)`) call functions PostgreSQL marks stable, while the encodings were declared immutable. An
-- immutable SQL function whose body is not immutable is never inlined: each call ran through the SQL function
-- executor, which plans its body again for every statement that calls it. The apply's linking calls them once per
-- statement (a notification's fields, then each new entry's), so every apply planned about seventeen small
-- queries: with 64 connections on 2 cores, `ledger_chain_link` took 2.5 ms of an apply's 3.6 ms of PostgreSQL work.
-- Declared stable, as what they call is, they are inlined into the callers' cached plans. The bytes they give are
-- unchanged (`ledger verify` recomputes them in Swift), and no index or constraint uses them.
ALTER FUNCTION ledger_chain_field(text) STABLE;
ALTER FUNCTION ledger_chain_field(timestamptz) STABLE;
