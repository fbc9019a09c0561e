import CatalogFile
import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// `subledger secrets`: rotation after an upgrade, and refusing bad keys.
@Suite struct SecretsCommandTests {
    typealias S = SecretsFixture

    /// A V1 body as Apple sends it, with the shared secret in `password`.
    static let v1Body = """
        {"notification_type":"DID_RENEW","password":"old-plain-secret","environment":"PROD",\
        "bid":"com.example.secrets","bvrs":"7","auto_renew_status":"true"}
        """
    static let v1Redacted = """
        {"notification_type":"DID_RENEW","environment":"PROD",\
        "bid":"com.example.secrets","bvrs":"7","auto_renew_status":"true"}
        """

    /// Runs `subledger ARGS` against `schema` (`nil`: the embedded cluster), with `environment` added;
    /// returns the exit status and output.
    static func subledger(
        _ arguments: [String], schema: String?, environment: [String: String] = [:]
    ) async throws -> (status: Int32, output: String) {
        var variables: [String: String] = [:]
        if let schema {
            variables["DATABASE_URL"] = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)
        }
        variables.merge(environment) { _, new in new }
        let run = await SubLedgerCLI.run(arguments + ["--log-level", "warning"], environment: variables)
        return (run.status, run.output)
    }

    @Test func rotateKeySealsPlaintextSecretsAndRedactsStoredV1Bodies() async throws {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            // Rows as an earlier version stored them: secrets in plaintext, a V1 body with its password.
            let keylessCatalog = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(S.catalogYAML)
            try await keylessCatalog.applyCatalog(catalog, secrets: secrets, allowingPlaintextSecrets: true)
            try await pool.query(
                """
                INSERT INTO notifications (notification_id, version, body) VALUES ('n1', 'v1', \(Self.v1Body)), ('n2',
                    'v2', \(#"{"signedPayload":"x","password":"kept"}"#))
                """)

            let key = SecretKey.generate()
            let before = try await Self.subledger(
                ["secrets", "status"], schema: schema, environment: ["SUBLEDGER_SECRET_KEY": key.base64])
            #expect(before.status == 0, "\(before.output)")
            #expect(before.output.contains("plaintext secrets: 3"))
            #expect(before.output.contains("V1 notification bodies holding a password: 1"))

            let rotated = try await Self.subledger(
                ["secrets", "rotate-key"], schema: schema, environment: ["SUBLEDGER_SECRET_KEY": key.base64])
            #expect(rotated.status == 0, "\(rotated.output)")
            #expect(rotated.output.contains("3 plaintext secret(s) sealed, 1 V1 notification body(ies) redacted"))

            let raw = try await S.rawColumns(pool)
            #expect(raw.sharedSecret == nil)
            #expect(raw.sharedKeyID == key.id)
            let catalogStore = CatalogStore(pool: pool, secretKeys: try SecretKeyring(keys: [key]))
            #expect(
                try await catalogStore.app(bundleID: S.bundleID)?.sharedSecret == "the-shared-secret-0123456789abcdef")
            let bodies = try await pool.query("SELECT body FROM notifications ORDER BY notification_id")
            #expect(
                try bodies.map { try $0.decode(String.self, at: 0) } == [
                    Self.v1Redacted, #"{"signedPayload":"x","password":"kept"}"#,
                ])

            let after = try await Self.subledger(
                ["secrets", "status"], schema: schema, environment: ["SUBLEDGER_SECRET_KEY": key.base64])
            #expect(after.status == 0, "\(after.output)")
            #expect(after.output.contains("sealed with \(key.id): 3"))
            #expect(after.output.contains("plaintext secrets: 0"))
            #expect(after.output.contains("V1 notification bodies holding a password: 0"))
        }
    }

    @Test func statusFailsWhenAStoredSecretNeedsAKeyThatIsNotConfigured() async throws {
        let old = SecretKey.generate()
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let catalogStore = CatalogStore(pool: pool, secretKeys: try SecretKeyring(keys: [old]))
            let (catalog, secrets) = try CatalogFile.read(S.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            let result = try await Self.subledger(
                ["secrets", "status"], schema: schema,
                environment: ["SUBLEDGER_SECRET_KEY": SecretKey.generate().base64])
            #expect(result.status != 0)
            #expect(result.output.contains("secret_key_unavailable"))
            #expect(result.output.contains(old.id))
            let keyless = try await Self.subledger(["secrets", "rotate-key"], schema: schema)
            #expect(keyless.status != 0)
            #expect(keyless.output.contains("no_secret_key"))
        }
    }

    /// The quick start (embedded cluster, nothing configured) creates its key file and seals with it.
    @Test func theEmbeddedQuickStartCreatesItsKeyFileAndSealsWithIt() async throws {
        let root = NSTemporaryDirectory() + "subledger-quickstart-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let catalog = root + "/catalog.yaml"
        try Data(S.catalogYAML.utf8).write(to: URL(fileURLWithPath: catalog))
        let data = root + "/data"

        let applied = try await Self.subledger(["catalog", "apply", catalog, "--data-dir", data], schema: nil)
        #expect(applied.status == 0, "\(applied.output)")
        #expect(applied.output.contains("created the secret key file \(data)/secret.key"))
        let attributes = try FileManager.default.attributesOfItem(atPath: data + "/secret.key")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let key = try #require(try SecretKeyFile.read(data + "/secret.key").current)

        let status = try await Self.subledger(["secrets", "status", "--data-dir", data], schema: nil)
        #expect(status.status == 0, "\(status.output)")
        #expect(status.output.contains("sealed with \(key.id): 3"))
        #expect(status.output.contains("plaintext secrets: 0"))
        #expect(!status.output.contains("created the secret key file"))
    }

    @Test func aBadKeySourceIsAClearErrorAndANonZeroExit() async throws {
        let directory = NSTemporaryDirectory() + "subledger-keys-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let short = directory + "/short.key"
        try Data("c2hvcnQ=\n".utf8).write(to: URL(fileURLWithPath: short))
        let cases: [(arguments: [String], environment: [String: String], code: String)] = [
            (["--secret-key-file", short], [:], "malformed_secret_key"),
            (["--secret-key-file", directory + "/missing.key"], [:], "unreadable_secret_key_file"),
            ([], ["SUBLEDGER_SECRET_KEY_FILE": short], "malformed_secret_key"),
            ([], ["SUBLEDGER_SECRET_KEY": "not-a-key"], "malformed_secret_key"),
            (
                [], ["SUBLEDGER_SECRET_KEY": SecretKey.generate().base64, "SUBLEDGER_SECRET_KEY_FILE": short],
                "conflicting_secret_key_sources"
            ),
        ]
        for item in cases {
            let result = try await Self.subledger(
                ["secrets", "status"] + item.arguments, schema: "unused", environment: item.environment)
            #expect(result.status != 0, "\(item.arguments) \(item.environment.keys.sorted())")
            #expect(result.output.contains(item.code), "\(result.output)")
            #expect(!result.output.contains("c2hvcnQ"))
            #expect(!result.output.contains("not-a-key"))
        }
    }
}
