import ArgumentParser
import Foundation
import Logging
import SubLedgerCore
import SubLedgerReports
import SubLedgerUseCases

/// `subledger support order|transaction|token|account ID`: what a customer's purchase became.
struct SupportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "support",
        abstract: "Look up a customer's purchase: owner, state now, ledger timeline, what to tell them.",
        discussion: """
            subledger support order MK5TTTVWJH     the order id of Apple's receipt e-mail
            subledger support transaction ID       a transaction or original transaction id
            subledger support token UUID           SubLedger's order token (appAccountToken)
            subledger support account ID           the app's account id
            subledger support transaction GPA.…    a Google Play order id (a renewal's with ..N)
            subledger support purchase-token TOKEN a Google Play purchase token
            subledger support stripe ID            a Stripe customer, subscription, invoice, charge or
                                                   payment intent (cus_…, sub_…, in_…, ch_…, pi_…)
            subledger support store paddle ID      an id a store declares for support: Paddle's
                                                   customer ctm_… or transaction txn_…

            An order id, and a transaction id the ledger does not hold, are asked of
            Apple with the app's App Store Server API key from the catalog. When Apple
            knows a purchase the ledger does not, the answer says so; --apply then
            applies Apple's transactions with no submitter: ownership follows their
            app account token, and without one the purchase stays unclaimed until the
            customer restores purchases. See docs/guides/operate.md, "A customer says they
            paid and got nothing".
            """,
        subcommands: [
            Order.self, TransactionLookup.self, Token.self, Account.self, AppTransactionLookup.self,
            PurchaseTokenLookup.self, StripeLookup.self, StoreLookup.self,
        ])

    /// The options every lookup takes.
    struct Options: ParsableArguments {
        @Option(help: "The app (bundle id); may be left out when one app is configured.")
        var app: String?

        @Option(help: "table or json.")
        var format: String = "table"

        func validate() throws {
            guard ["table", "json"].contains(format) else {
                throw ValidationError("unknown format '\(format)': use table or json")
            }
        }
    }

    struct Order: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "order", abstract: "Look up Apple's order id (Look Up Order ID).")
        @Argument(help: "The order id from Apple's receipt e-mail, like MK5TTTVWJH.") var id: String
        @Flag(help: "Apply the transactions Apple knows and the ledger does not.") var apply = false
        @OptionGroup var options: Options
        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws { _ = try SupportCommand.parse(id, SupportQuery.order(parsing:)) }
        func run() async throws {
            try await SupportCommand.run(
                SupportCommand.parse(id, SupportQuery.order(parsing:)), apply: apply, options: options, apple: apple,
                database: database)
        }
    }

    struct TransactionLookup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "transaction",
            abstract: "Look up a transaction id or original transaction id (ledger, then Apple).")
        @Argument(help: "The transaction id or original transaction id.") var id: String
        @Flag(help: "Apply the transaction if Apple knows it and the ledger does not.") var apply = false
        @OptionGroup var options: Options
        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws { _ = try SupportCommand.parse(id, SupportQuery.transaction(parsing:)) }
        func run() async throws {
            try await SupportCommand.run(
                SupportCommand.parse(id, SupportQuery.transaction(parsing:)), apply: apply, options: options,
                apple: apple, database: database)
        }
    }

    struct Token: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token", abstract: "Look up an app account token (SubLedger's order token, a UUID).")
        @Argument(help: "The UUID.") var id: String
        @OptionGroup var options: Options
        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws { _ = try SupportCommand.parse(id, SupportQuery.appAccountToken(parsing:)) }
        func run() async throws {
            try await SupportCommand.run(
                SupportCommand.parse(id, SupportQuery.appAccountToken(parsing:)), apply: false, options: options,
                apple: apple, database: database)
        }
    }

    struct AppTransactionLookup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "app-transaction",
            abstract: "Look up Apple's appTransactionId (the customer's download or purchase of the app).")
        @Argument(help: "The app transaction id.") var id: String
        @OptionGroup var options: Options
        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws { _ = try SupportCommand.parse(id, SupportQuery.appTransaction(parsing:)) }
        func run() async throws {
            try await SupportCommand.run(
                SupportCommand.parse(id, SupportQuery.appTransaction(parsing:)), apply: false, options: options,
                apple: apple, database: database)
        }
    }

    struct PurchaseTokenLookup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "purchase-token", abstract: "Look up a Google Play purchase token.")
        @Argument(help: "The purchase token.") var id: String
        @OptionGroup var options: Options
        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws { _ = try SupportCommand.parse(id, SupportQuery.purchaseToken(parsing:)) }
        func run() async throws {
            try await SupportCommand.run(
                SupportCommand.parse(id, SupportQuery.purchaseToken(parsing:)), apply: false, options: options,
                apple: apple, database: database)
        }
    }

    struct StripeLookup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stripe",
            abstract: "Look up a Stripe customer, subscription, invoice, charge or payment intent id.")
        @Argument(help: "The Stripe id: cus_…, sub_…, in_…, ch_… or pi_….") var id: String
        @OptionGroup var options: Options
        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws { _ = try SupportCommand.parse(id, SupportQuery.stripe(parsing:)) }
        func run() async throws {
            try await SupportCommand.run(
                SupportCommand.parse(id, SupportQuery.stripe(parsing:)), apply: false, options: options,
                apple: apple, database: database)
        }
    }

    struct StoreLookup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "store",
            abstract: "Look up an id a store module declares for support (Paddle's ctm_… or txn_…).")
        @Argument(help: "The store: \(Store.allCases.map(\.rawValue).joined(separator: ", ")).") var store: String
        @Argument(help: "The store's id, with the prefix the store declares.") var id: String
        @OptionGroup var options: Options
        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        /// The query, with the ids the named store's module declares.
        func query() throws -> SupportQuery {
            guard let store = Store(rawValue: store) else {
                throw ValidationError(
                    "unknown store '\(store)': use \(Store.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let ids = try StoreModules.registry(logger: Logger(label: "subledger.support"))[store]?.supportIDs ?? []
            guard !ids.isEmpty else {
                throw ValidationError("\(store.displayName) declares no ids of its own: use `support transaction`")
            }
            return try SupportCommand.parse(id) { raw throws(SupportError) in
                try SupportQuery.store(parsing: raw, among: ids)
            }
        }

        func validate() throws { _ = try query() }
        func run() async throws {
            try await SupportCommand.run(try query(), apply: false, options: options, apple: apple, database: database)
        }
    }

    struct Account: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "account", abstract: "Look up an account id.")
        @Argument(help: "The app's account id.") var id: String
        @OptionGroup var options: Options
        @OptionGroup var apple: AppleOptions
        @OptionGroup var database: DatabaseOptions

        func validate() throws { _ = try SupportCommand.parse(id, SupportQuery.account(parsing:)) }
        func run() async throws {
            try await SupportCommand.run(
                SupportCommand.parse(id, SupportQuery.account(parsing:)), apply: false, options: options, apple: apple,
                database: database)
        }
    }

    static func parse(_ id: String, _ parse: (String) throws(SupportError) -> SupportQuery) throws -> SupportQuery {
        do {
            return try parse(id)
        } catch {
            throw ValidationError("\(error.code.rawValue): \(error.message)")
        }
    }

    static func run(
        _ query: SupportQuery, apply: Bool, options: Options, apple: AppleOptions, database: DatabaseOptions
    ) async throws {
        let environment = CommandContext.current.environment
        var configuration = ServiceConfiguration()
        try database.apply(to: &configuration, environment: environment)
        try apple.apply(to: &configuration.apple, environment: environment)
        StoreModules.registerAppStore(in: &configuration)
        let logger = makeLogger("subledger.support", level: configuration.logLevel)
        // A refusal (SupportError: not found, Apple unavailable, ...) is printed as `Error: code: message`, exit 1.
        let answer = try await SupportLookup.answer(
            query, bundleID: options.app, apply: apply, configuration: configuration, logger: logger)
        printOutput(options.format == "json" ? answer.json : answer.text, terminator: "")
    }
}
