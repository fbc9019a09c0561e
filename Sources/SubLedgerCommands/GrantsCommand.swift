import ArgumentParser
import Foundation
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// `subledger grants list|grant|revoke`: entitlements given by hand, with the rules of the HTTP routes
/// (docs/guides/accounts.md, "Granted entitlements").
struct GrantsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "grants",
        abstract: "Grant an entitlement to an account by hand, revoke a grant, or list an account's grants.",
        subcommands: [List.self, Grant.self, Revoke.self])

    /// Runs `body` with the grants of the configured database; a refusal becomes a `ValidationError` with its code.
    static func withGrants<T: Sendable>(
        _ database: DatabaseOptions, _ body: (EntitlementGrants) async throws -> T
    ) async throws -> T {
        try await withStores(database, label: "subledger.grants") { stores in
            do {
                return try await body(
                    EntitlementGrants(
                        store: EntitlementGrantStore(pool: stores.pool), catalog: stores.catalog,
                        now: { Instant.systemNow() }))
            } catch let error as GrantError {
                throw ValidationError("\(error.code): \(error.message)")
            }
        }
    }

    /// One grant as a line of `list` (and the answer of `grant` and `revoke`).
    static func line(_ record: EntitlementGrantRecord) -> String {
        [
            record.grant.grantID, record.grant.entitlementID, record.grant.environment.rawValue,
            RFC3339.format(record.grant.startsAt), RFC3339.format(record.grant.endsAt),
            record.grant.revokedAt.map { RFC3339.format($0) } ?? "-", record.grantedBy, record.revokedBy ?? "-",
            record.reason,
        ].joined(separator: "\t")
    }

    static let header = [
        "GRANT ID", "ENTITLEMENT", "ENVIRONMENT", "STARTS", "ENDS", "REVOKED", "BY", "REVOKED BY", "REASON",
    ]
    .joined(separator: "\t")

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List an account's grants, oldest first.")

        @Option(help: "The bundle id of the app.")
        var app: String

        @Argument(help: "The account id.")
        var account: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let records = try await GrantsCommand.withGrants(database) { grants in
                try await grants.grants(bundleID: app, account: account)
            }
            printOutput(GrantsCommand.header)
            for record in records { printOutput(GrantsCommand.line(record)) }
        }
    }

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Grant an entitlement from now, until a time (--until) or for a duration (--duration).")

        @Option(help: "The bundle id of the app.")
        var app: String

        @Argument(help: "The account id.")
        var account: String

        @Option(help: "The entitlement id (one the app's catalog has).")
        var entitlement: String

        @Option(help: "When the grant ends: an RFC 3339 time after now.")
        var until: String?

        @Option(help: "How long the grant lasts: 12h, 30d or 52w (at most 100 years).")
        var duration: String?

        @Option(help: "Why (at most 500 characters); recorded in the ledger.")
        var reason: String

        @Option(help: "Who grants: recorded in the ledger as the actor.")
        var by: String

        @Option(help: "Production (default) or Sandbox.")
        var environment: String?

        @Option(help: "A client key: the same key for the account gives back the first grant instead of a new one.")
        var idempotencyKey: String?

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let result = try await GrantsCommand.withGrants(database) { grants in
                try await grants.grant(
                    EntitlementGrants.Request(
                        bundleID: app, account: account, entitlementID: entitlement, until: until, duration: duration,
                        reason: reason, environment: environment, idempotencyKey: idempotencyKey),
                    by: by)
            }
            printOutput(GrantsCommand.header)
            printOutput(GrantsCommand.line(result.record))
            if !result.created { printError("the idempotency key was used before: this is the first grant") }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a grant now (a revoked grant stays as it is).")

        @Option(help: "The bundle id of the app.")
        var app: String

        @Argument(help: "The account id.")
        var account: String

        @Argument(help: "The grant id (from `grants list`).")
        var grantID: String

        @Option(help: "Who revokes: recorded in the ledger as the actor.")
        var by: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let record = try await GrantsCommand.withGrants(database) { grants in
                try await grants.revoke(bundleID: app, account: account, grantID: grantID, by: by)
            }
            printOutput(GrantsCommand.header)
            printOutput(GrantsCommand.line(record))
        }
    }
}
