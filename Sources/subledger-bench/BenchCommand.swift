import AppStore
import Foundation
import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore

/// `subledger-bench`: prepares data for scripts/bench. Not part of the product.
///
///     subledger-bench catalog                         # the benchmark app's catalog, for `subledger catalog apply`
///     subledger-bench load ACCOUNTS RENEWALS          # DATABASE_URL; every account gets one chain
///     subledger-bench notifications COUNT DIRECTORY [PURCHASES]
///                                                     # signed DID_RENEW bodies + the root certificate, and
///                                                     # PURCHASES signed new purchases (scripts/ha-test)
///     subledger-bench refresh-sql                     # the report projector's refreshes for one bench chain,
///                                                     # as pgbench script lines (scripts/bench, write.sql)
///     subledger-bench read-sql                        # the entitlement read's statement as a pgbench script
///                                                     # line (scripts/bench, read.sql)
///     subledger-bench project SECONDS                 # DATABASE_URL; runs the report projector, prints its lag
///     subledger-bench catalog-google KEY_FILE         # the catalog with the app's Google Play listing and product
///     subledger-bench play-packages                   # play-sim's packages (--config) for that listing
///     subledger-bench google-notifications COUNT SIM_URL KEY_DIR DIRECTORY
///                                                     # COUNT purchases in play-sim; their RTDN as push bodies
///                                                     # (DIRECTORY/google.jsonl) and a push token (google.token)
///     subledger-bench catalog-stripe [KEY_FILE]       # the catalog with the app's Stripe account and web product
///                                                     # (and the Google Play listing of KEY_FILE)
///     subledger-bench stripe-events COUNT SIM_URL SERVER_URL API_KEY DIRECTORY
///                                                     # COUNT web purchases (SubLedger's checkout, paid in
///                                                     # stripe-sim); their invoice.paid events (stripe-events.jsonl)
///     subledger-bench stripe-sign DIRECTORY           # those events signed now (stripe.jsonl: signature TAB body)
@main
enum BenchCommand {
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            switch arguments.first {
            case "load":
                try await BenchLedger.load(
                    accounts: try number(arguments, 1, default: 100_000), renewals: try number(arguments, 2, default: 2)
                )
            case "catalog":
                print(BenchShape.catalogYAML)
            case "catalog-google":
                guard arguments.count >= 2 else { throw BenchError("usage: subledger-bench catalog-google KEY_FILE") }
                print(BenchGoogleNotifications.catalogYAML(keyFile: arguments[1]))
            case "catalog-stripe":
                print(BenchStripeEvents.catalogYAML(googleKeyFile: arguments.count >= 2 ? arguments[1] : nil))
            case "stripe-events":
                guard arguments.count >= 6 else {
                    throw BenchError(
                        "usage: subledger-bench stripe-events COUNT SIM_URL SERVER_URL API_KEY DIRECTORY")
                }
                try await BenchStripeEvents.write(
                    count: try number(arguments, 1, default: 0), simulator: arguments[2], server: arguments[3],
                    apiKey: arguments[4], to: arguments[5])
            case "stripe-sign":
                guard arguments.count >= 2 else { throw BenchError("usage: subledger-bench stripe-sign DIRECTORY") }
                try BenchStripeEvents.sign(directory: arguments[1])
            case "play-packages":
                print(BenchGoogleNotifications.packagesJSON)
            case "google-notifications":
                guard arguments.count >= 5 else {
                    throw BenchError("usage: subledger-bench google-notifications COUNT SIM_URL KEY_DIR DIRECTORY")
                }
                try await BenchGoogleNotifications.write(
                    count: try number(arguments, 1, default: 0), simulator: arguments[2], keyDirectory: arguments[3],
                    to: arguments[4])
            case "refresh-sql":
                print(try BenchShape.refreshScript())
            case "read-sql":
                print(try BenchShape.readScript())
            case "project":
                try await BenchLedger.project(seconds: try number(arguments, 1, default: 20))
            case "notifications":
                guard arguments.count >= 3 else {
                    throw BenchError("usage: subledger-bench notifications COUNT DIRECTORY [PURCHASES]")
                }
                try BenchNotifications.write(
                    count: try number(arguments, 1, default: 0), to: arguments[2],
                    purchases: try number(arguments, 3, default: 0))
            default:
                throw BenchError(
                    "usage: subledger-bench catalog | load [ACCOUNTS] [RENEWALS] | "
                        + "notifications COUNT DIRECTORY [PURCHASES] | refresh-sql | read-sql | project [SECONDS] | "
                        + "catalog-google KEY_FILE | play-packages | google-notifications COUNT SIM_URL KEY_DIR DIRECTORY | "
                        + "catalog-stripe [KEY_FILE] | stripe-events COUNT SIM_URL SERVER_URL API_KEY DIRECTORY | "
                        + "stripe-sign DIRECTORY"
                )
            }
        } catch {
            FileHandle.standardError.write(Data("subledger-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func number(_ arguments: [String], _ index: Int, default value: Int) throws -> Int {
        guard arguments.count > index else { return value }
        guard let number = Int(arguments[index]), number >= 0 else {
            throw BenchError("'\(arguments[index])' is not a number")
        }
        return number
    }
}

/// A usage or setup error, printed as is.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The benchmark's app and the shape of its data, shared by the loader and the notification writer.
enum BenchShape {
    static let bundleID = "com.example.bench"
    static let appAppleID: Int64 = 1_234_567_890
    static let productID = "bench.monthly"
    static let groupID = "bench"
    static let day: Int64 = 86_400_000
    /// Periods are 30 days; the latest one of every chain is current on the day the bench runs.
    static let period: Int64 = 30 * day

    static let catalogYAML = """
        apps:
          - bundle_id: \(bundleID)
            apple_app_id: \(appAppleID)
            environments: [production, sandbox]
            products:
              - { product_id: \(productID), type: auto_renewable, subscription_group_id: "\(groupID)", entitlements: [pro] }
        """

    /// `ChainAggregates.refresh`'s statements for the chain of pgbench's account `:n` of app `:app_id` in
    /// Production, one per line group, each ending with `;`: what `write.sql` ran where an apply refreshed them,
    /// before the report projection queue (schema step 32).
    static func refreshScript() throws -> String {
        let chains = "('{' || (2000000000000 + :n::bigint)::text || '}')"
        return try ChainAggregateStatements.refresh.map { statement in
            // pgbench reads `:word` as a variable; the statements' own colons are casts (`::`) only.
            guard !statement.sql.replacingOccurrences(of: "::", with: "").contains(":") else {
                throw BenchError("a refresh statement has a lone ':': \(statement.sql)")
            }
            var sql = statement.sql
            // The highest placeholder first, so `$1` never replaces the start of `$10`.
            for (index, parameter) in statement.parameters.enumerated().reversed() {
                let value =
                    switch parameter {
                    case .appID: ":app_id"
                    case .environment: "'Production'"
                    case .chains: chains
                    }
                sql = sql.replacingOccurrences(of: "$\(index + 1)", with: value)
            }
            return sql + ";"
        }.joined(separator: "\n")
    }

    /// The entitlement read's statement (`EntitlementReadStore.statement`) as one pgbench script line, its
    /// parameters as pgbench's variables: `:app_id`, the account `acct-:n` and the instant `:now_ms` (milliseconds
    /// since 1970, and as a timestamptz where the statement compares one).
    static func readScript() throws -> String {
        // Values no real parameter takes, so that each placeholder is known by the value it carries.
        let appID: Int64 = 987_654_321_987
        let account = try AccountID("acct-bench-read-sql")
        let instant = Instant(millisecondsSince1970: 1_234_567_890_123)
        let statement = EntitlementReadStore.statement(of: account, appID: appID, at: instant)
        guard !statement.sql.replacingOccurrences(of: "::", with: "").contains(":") else {
            throw BenchError("the read statement has a lone ':': \(statement.sql)")
        }
        let names: [PostgresValue: String] = [
            .int64(appID): ":app_id",
            .text(account.rawValue): "('acct-' || :n::text)",
            .int64(instant.millisecondsSince1970): ":now_ms",
            .timestamptz(millisecondsSince1970: instant.millisecondsSince1970): "to_timestamp(:now_ms / 1000.0)",
        ]
        var sql = statement.sql
        // The highest placeholder first, so `$1` never replaces the start of `$10`.
        for (index, parameter) in statement.parameters.enumerated().reversed() {
            guard let name = names[parameter] else {
                throw BenchError("the read statement has a parameter the bench cannot name: $\(index + 1)")
            }
            sql = sql.replacingOccurrences(of: "$\(index + 1)", with: name)
        }
        return sql.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ") + ";"
    }

    static func account(_ index: Int) -> String { "acct-\(index)" }
    static func chainID(_ index: Int) -> String { String(2_000_000_000_000 + index) }
    /// Transaction `period` of chain `index` (0 is the purchase).
    static func transactionID(_ index: Int, period: Int) -> String {
        String(2_000_000_000_000 + period * 10_000_000 + index)
    }

    /// The purchase time of chain `index`: spread over a day so chains do not all renew at once, early enough
    /// that `renewals` renewals end in the future.
    static func purchase(_ index: Int, renewals: Int, now: Instant) -> Instant {
        now.adding(milliseconds: -Int64(renewals) * period - Int64(index % 86_400) * 1000)
    }
}
