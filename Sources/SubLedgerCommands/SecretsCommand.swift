import AppStore
import ArgumentParser
import Foundation
import SubLedgerStore

/// `subledger secrets generate-key|status|rotate-key`: the keys that seal apps' secrets at rest.
struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets",
        abstract: "Manage the secret keys that seal apps' secrets in the database (docs/guides/operate.md).",
        subcommands: [GenerateKey.self, Status.self, RotateKey.self])

    struct GenerateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate-key",
            abstract: "Print a new random secret key (base64 of 32 bytes) and its id; stores nothing.")

        func run() async throws {
            let key = SecretKey.generate()
            printOutput(key.base64)
            printError("key id \(key.id); put it first in the key file to seal with it")
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show which keys seal the stored secrets and what is still stored in plaintext; "
                + "exits non-zero when a key they need is not configured.")

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let (configured, status, unredacted) = try await withStores(database, checkingSecretKeys: false) { stores in
                (
                    stores.secretKeys.keys.map(\.id), try await stores.secrets.status(),
                    try await stores.secrets.countUnredactedV1Notifications(redact: redactV1Body)
                )
            }
            let listed = configured.enumerated().map { $0.offset == 0 ? "\($0.element) (seals)" : $0.element }
            printOutput("configured keys: \(listed.isEmpty ? "none" : listed.joined(separator: ", "))")
            for (keyID, count) in status.sealedByKeyID.sorted(by: { $0.key < $1.key }) {
                let missing = status.missingKeyIDs.contains(keyID) ? " (key not configured)" : ""
                printOutput("sealed with \(keyID): \(count)\(missing)")
            }
            printOutput("plaintext secrets: \(status.plaintext)")
            printOutput("V1 notification bodies holding a password: \(unredacted)")
            guard status.missingKeyIDs.isEmpty else {
                throw SecretError(
                    .keyUnavailable,
                    "stored secrets need key(s) \(status.missingKeyIDs.joined(separator: ", ")), not configured")
            }
        }
    }

    struct RotateKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-key",
            abstract: "Seal every stored secret with the first configured key (re-sealing older ones, sealing "
                + "plaintext ones) and remove passwords from stored V1 notification bodies.",
            discussion: """
                Configure the new key first and the old ones after it, and restart every serve and poll process \
                with those keys before running this; remove the old keys only afterwards. See docs/guides/operate.md, \
                "Secrets at rest".
                """)

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let (resealing, redacted, status) = try await withStores(database, checkingSecretKeys: false) { stores in
                guard !stores.secretKeys.isEmpty else {
                    throw SecretError(
                        .noSecretKey,
                        "no secret key is configured: set --secret-key-file, SUBLEDGER_SECRET_KEY_FILE or SUBLEDGER_SECRET_KEY"
                    )
                }
                let resealing = try await stores.secrets.reseal()
                let redacted = try await stores.secrets.redactStoredV1Notifications(redact: redactV1Body)
                return (resealing, redacted, try await stores.secrets.status())
            }
            printOutput(
                "sealed with key \(resealing.keyID): \(resealing.resealed) secret(s) re-sealed from older keys, "
                    + "\(resealing.sealedPlaintext) plaintext secret(s) sealed, \(redacted) V1 notification body(ies) redacted"
            )
            let stale = status.sealedByKeyID.keys.filter { $0 != resealing.keyID }.sorted()
            if stale.isEmpty {
                printOutput(
                    "no stored secret needs another key; older keys can be removed once every process runs with the new one"
                )
            } else {
                printOutput(
                    "still sealed with other keys (written meanwhile?): \(stale.joined(separator: ", ")); run again")
            }
        }
    }
}

/// A stored V1 body without the shared secret (see `NotificationV1Redaction`).
private func redactV1Body(_ body: String) -> String {
    String(decoding: NotificationV1Redaction.removingPassword(from: Data(body.utf8)), as: UTF8.self)
}
