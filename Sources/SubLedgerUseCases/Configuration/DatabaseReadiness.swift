import PostgresLibPQ
import SubLedgerStore

/// What a process checks before it uses the ledger, as `serve` and `poll` do, so that no command works on a
/// database `serve` would refuse: the connection goes through the declared pooler, the schema is the one this
/// build knows, and every stored secret opens with the configured keys.
public enum DatabaseReadiness {
    /// Throws a `DatabasePoolerError`, a `ConfigurationError` (the schema is not current) or a `SecretError`
    /// (`secret_key_unavailable`). `checkingSecretKeys: false` is for the commands that manage the keys
    /// themselves (`subledger secrets`), which must run while a key is missing.
    public static func check(
        _ secrets: SecretStore, pooler: DatabasePooler, migrator: Migrator, checkingSecretKeys: Bool = true
    ) async throws {
        try await pooler.check(secrets.pool)
        guard try await migrator.isCurrent(secrets.pool) else {
            throw ConfigurationError("the database schema is not current: run `subledger migrate` first")
        }
        if checkingSecretKeys { _ = try await secrets.checkKeys() }
    }
}
