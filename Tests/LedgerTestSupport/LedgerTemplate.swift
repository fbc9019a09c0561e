import PostgresLibPQ
import SubLedgerStore
import SubLedgerTestSupport

extension TestDatabaseTemplate {
    /// A database with every migration of this build applied: what `subledger migrate` makes of an empty one.
    /// Its name carries a digest of the migrations, so a changed migration makes a new template.
    /// On a Citus cluster it is then distributed as `subledger migrate --distribute` does, with 4 shards a table.
    public static let ledger = TestDatabaseTemplate(
        name: "template_ledger_\(migrationsDigest)",
        prepare: { pool in try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool) },
        distribute: { pool in _ = try await CitusDistribution.distribute(pool, shardCount: 4) })

    /// FNV-1a over every migration file's name and text, in hexadecimal.
    private static let migrationsDigest: String = {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for file in BundledMigrations.files() {
            for byte in file.name.utf8 + [0] + file.text.utf8 + [0] {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
        }
        return String(hash, radix: 16)
    }()
}
