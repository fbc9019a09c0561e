import ArgumentParser
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// `subledger accounts merge|aliases`: account merges, with the rules of the HTTP routes (docs/guides/accounts.md,
/// "Merging accounts").
struct AccountsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "Merge one account of an app into another, or list the accounts merged into one.",
        subcommands: [Merge.self, Aliases.self, Erase.self])

    /// Runs `body` with the merges of the configured database; a refusal becomes a `ValidationError` with its code.
    static func withMerges<T: Sendable>(
        _ database: DatabaseOptions, _ body: (AccountMerges) async throws -> T
    ) async throws -> T {
        try await withStores(database, label: "subledger.accounts") { stores in
            do {
                return try await body(
                    AccountMerges(
                        store: AccountMergeStore(pool: stores.pool), catalog: stores.catalog,
                        now: { Instant.systemNow() }))
            } catch let error as MergeError {
                throw ValidationError("\(error.code): \(error.message)")
            }
        }
    }

    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move every chain, live grant and credit of --from to INTO, and make --from an alias of INTO.")

        @Argument(help: "The account to merge into.")
        var into: String

        @Option(help: "The account to merge (it becomes an alias of INTO).")
        var from: String

        @Option(help: "The bundle id of the app.")
        var app: String

        @Option(help: "Who merges: recorded in the ledger as the actor.")
        var by: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let moves = try await AccountsCommand.withMerges(database) { merges in
                try await merges.merge(bundleID: app, into: into, from: from, by: by)
            }
            guard moves.merged else {
                printOutput("\(from) was merged into \(into) already; nothing moved")
                return
            }
            printOutput("merged \(from) into \(into)")
            for chain in moves.chains {
                printOutput("chain\t\(chain.environment.rawValue)\t\(chain.chainID)")
            }
            for grant in moves.grants { printOutput("grant\t\(grant)") }
            printOutput("credits\t\(moves.credits)")
        }
    }

    struct Erase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase an account: its id and identifiers replaced by a pseudonym everywhere, in one transaction."
        )

        @Argument(help: "The account id to erase.")
        var account: String

        @Option(help: "The bundle id of the app.")
        var app: String

        @Option(help: "Who erases: recorded with the erasure.")
        var by: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let erasure = try await withStores(database, label: "subledger.accounts") { stores in
                do {
                    return try await AccountErasures(
                        store: AccountErasureStore(pool: stores.pool), catalog: stores.catalog,
                        now: { Instant.systemNow() }
                    ).erase(bundleID: app, account: account, by: by)
                } catch let error as ErasureError {
                    throw ValidationError("\(error.code): \(error.message)")
                }
            }
            printOutput("erased; the account's rows now carry \(erasure.pseudonym)")
            for (table, count) in erasure.counts.sorted(by: { $0.key < $1.key }) { printOutput("\(table)\t\(count)") }
            printOutput("aliases\t\(erasure.aliases)")
        }
    }

    struct Aliases: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the accounts merged into an account.")

        @Argument(help: "The account id.")
        var account: String

        @Option(help: "The bundle id of the app.")
        var app: String

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let aliases = try await AccountsCommand.withMerges(database) { merges in
                try await merges.aliases(bundleID: app, account: account)
            }
            printOutput(["ALIAS", "MERGED AT", "BY"].joined(separator: "\t"))
            for alias in aliases {
                printOutput(
                    [alias.account.rawValue, RFC3339.format(alias.mergedAt), alias.mergedBy].joined(separator: "\t"))
            }
        }
    }
}
