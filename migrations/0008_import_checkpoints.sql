-- step 8: migration imports keep a checkpoint: one run per CSV file (by digest), each row's status
-- `subledger import FILE` records every row it finished here, so after a crash or Ctrl-C the same file
-- resumes where it stopped. A `done` row is skipped on a re-run; a `failed` row is tried again.
CREATE TABLE import_runs (
    import_run_id bigserial PRIMARY KEY,
    file_digest text NOT NULL UNIQUE CHECK (file_digest ~ '^[0-9a-f]{64}$'),
    file_name text NOT NULL CHECK (length(file_name) <= 1024),
    total_rows integer NOT NULL CHECK (total_rows >= 0),
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
CREATE TABLE import_rows (
    import_run_id bigint NOT NULL REFERENCES import_runs ON DELETE CASCADE,
    line_number integer NOT NULL CHECK (line_number > 0),
    status text NOT NULL CHECK (status IN ('done', 'failed')),
    account_id text NOT NULL,
    original_transaction_id text,
    transactions integer NOT NULL DEFAULT 0 CHECK (transactions >= 0),
    reason text CHECK (length(reason) <= 1000),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (import_run_id, line_number)
);
