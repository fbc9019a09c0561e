import ArgumentParser
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore

/// `subledger ledger verify`: recomputes the ledger's hash chains (docs/guides/operate.md, "Verifying the ledger").
struct LedgerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ledger",
        abstract: "The ledger's tamper evidence.",
        subcommands: [Verify.self])

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Recompute the hash chains of the ledger entries and stored inputs; name the first mismatch.",
            discussion: """
                Every ledger entry and every receipt or notification an apply used is a link of its subscription \
                chain: its hash covers the link before it. This recomputes every chain (of one app with --app) from \
                the rows as stored and compares with the stored links and heads. With --since only the chains \
                linked to since then are checked, from their first link since then. Exit status 0 when everything \
                matches, 1 when something does not (each broken chain's first mismatch is printed: table, id, \
                chain).
                """)

        @Option(help: "Only this app (bundle id).") var app: String?
        @Option(help: "Only links made since this moment (YYYY-MM-DD, UTC, or an ISO 8601 time with a zone).")
        var since: String?
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            if let app, !IdentifierRule.bundleID.accepts(app) { throw ValidationError("--app is not a bundle id") }
            if let since { _ = try Self.instant(since) }
        }

        static func instant(_ text: String) throws -> Instant {
            do {
                return try ReportArguments.instant(text, now: Instant.systemNow())
            } catch {
                throw ValidationError("--since: \(error)")
            }
        }

        func run() async throws {
            let since = try self.since.map(Self.instant)
            let result = try await withStores(database, label: "subledger.ledger") { stores in
                var appID: Int64?
                if let app {
                    guard let stored = try await stores.catalog.app(bundleID: app) else {
                        throw ValidationError("no app \(app) is configured")
                    }
                    appID = stored.appID
                }
                return try await stores.ledger.verifyLedgerChain(appID: appID, since: since)
            }
            printOutput(
                "checked \(result.chains) chain(s), \(result.links) link(s), rehashed \(result.rehashed)"
                    + (result.erased > 0 ? ", \(result.erased) erased (matched by their erasure records)" : ""))
            guard let first = result.breaks.first else {
                printOutput("ledger verify: every chain matches")
                return
            }
            printOutput("ledger verify: MISMATCH: first: \(first)")
            for other in result.breaks.dropFirst() { printOutput("  also: \(other)") }
            throw ExitCode(1)
        }
    }
}
