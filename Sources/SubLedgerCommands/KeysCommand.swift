import ArgumentParser
import Foundation
import SubLedgerStore
import SubLedgerUseCases

/// `subledger keys create|list|revoke`: API keys for app servers (one app each), admins, support and reports.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage API keys. A key is shown once, when created; only its SHA-256 is stored.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a key for one app (--app), an admin key (--admin), or a support or reports key (--scope)."
        )

        @Option(help: "The bundle id of the app the key may act for.")
        var app: String?

        @Flag(help: "Create an admin key (everything an operator does, every app) instead of an app key.")
        var admin = false

        @Option(
            help: ArgumentHelp(
                "Create a key of this scope: admin, support (customer lookups, grants, extensions, merges) or reports "
                    + "(reports and the admin page's charts, read-only).",
                valueName: "scope"))
        var scope: String?

        @Option(help: "A name to tell keys apart in listings.")
        var name: String

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard [app != nil, admin, scope != nil].filter({ $0 }).count == 1 else {
                throw ValidationError("give one of --app BUNDLE_ID, --admin or --scope SCOPE")
            }
            if let scope, AuthenticatedKey.Scope(rawValue: scope) == nil || scope == "app" {
                throw ValidationError("--scope is admin, support or reports (an app key: --app BUNDLE_ID)")
            }
        }

        func run() async throws {
            let keyScope: AuthenticatedKey.Scope =
                app != nil ? .app : admin ? .admin : (scope.flatMap(AuthenticatedKey.Scope.init(rawValue:)) ?? .admin)
            let created = try await withDatabase(database) { pool in
                try await APIKeys(store: APIKeyStore(pool: pool)).create(scope: keyScope, bundleID: app, name: name)
            }
            printOutput(created.secret)
            printError("key \(created.keyID) created; the secret above is shown only now")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List keys (never their secrets).")

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let keys = try await withDatabase(database) { pool in
                try await APIKeys(store: APIKeyStore(pool: pool)).list()
            }
            printOutput(["KEY ID", "SCOPE", "APP", "NAME", "PREFIX", "CREATED", "REVOKED"].joined(separator: "\t"))
            for key in keys {
                printOutput(
                    [
                        key.keyID, key.scope, key.bundleID ?? "-", key.name, key.prefix + "…", key.createdAt,
                        key.revokedAt ?? "-",
                    ]
                    .joined(separator: "\t"))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key; every running service stops accepting it.")

        @Argument(help: "The key id (from `keys list`).")
        var keyID: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let revoked = try await withDatabase(database) { pool in
                try await APIKeys(store: APIKeyStore(pool: pool)).revoke(keyID: keyID)
            }
            guard revoked else { throw ValidationError("no active key \(keyID)") }
            printOutput("revoked \(keyID)")
        }
    }
}
