import ArgumentParser
import Foundation
import SubLedgerUseCases

/// `subledger import FILE`: moves existing subscribers onto SubLedger (see docs/guides/operate.md).
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import existing subscribers: each CSV row's chain is fetched from Apple and claimed by its account.",
        discussion: """
            FILE is CSV (RFC 4180, UTF-8) with the header row
              account_id,original_transaction_id,receipt_data,environment
            and one row per chain: the account that owns it, and either the chain's original transaction id
            (its whole history is fetched from the App Store Server API: the app needs a Server API key) or a
            base64 app receipt (verified with verifyReceipt). environment is Production or Sandbox (it may be
            empty on a receipt row). A bad row is reported with its line number and the others go on.

            Google Play subscribers: a file with the header row
              account_id,purchase_token,product_id
            one row per purchase token the app holds; each is read from the Google Play Developer API (the app
            needs its google_play listing and service account key) and claimed by the row's account, and
            acknowledged if Google has it unacknowledged.

            Stripe subscribers: a file with the header row
              account_id,stripe_subscription_id
            one row per subscription (sub_...) the app's customers pay for on the web; each is read from the
            Stripe API with its invoices, payments, refunds and disputes (the app needs its stripe account) and
            claimed by the row's account. Its later events are the chain owner's.

            Progress is checkpointed in the database by the file's SHA-256: after a crash or Ctrl-C, run the
            same command again and finished rows are skipped; applying a chain twice changes nothing.
            Exit status: 0 all rows imported, 2 some rows failed, 130 interrupted.
            """)

    @Argument(help: "The CSV file to import.")
    var file: String

    @Option(name: .customLong("app"), help: "The bundle id of the app the subscribers belong to.")
    var bundleID: String

    @Flag(help: "Print what would happen; write nothing and call Apple for nothing.")
    var dryRun = false

    @Option(help: "Rows imported at the same time (1-64, default 4).")
    var concurrency = 4

    @Option(
        name: .customLong("rate"),
        help: "At most this many calls to Apple per second (default: no pacing, back off on 429).")
    var requestsPerSecond: Double?

    @Option(help: "Tries of one call to Apple before its row fails (default 12).")
    var maximumAttempts = 12

    @Flag(help: "Plain progress lines even on a terminal.")
    var plainProgress = false

    @OptionGroup var apple: AppleOptions
    @OptionGroup var stores: StoreOptions
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard (1...64).contains(concurrency) else { throw ValidationError("--concurrency must be 1 to 64") }
        if let requestsPerSecond, !(requestsPerSecond > 0 && requestsPerSecond <= 10_000) {
            throw ValidationError("--rate must be above 0 and at most 10000")
        }
        guard (1...1000).contains(maximumAttempts) else {
            throw ValidationError("--maximum-attempts must be 1 to 1000")
        }
        guard !bundleID.isEmpty else { throw ValidationError("--app must name a bundle id") }
    }

    func run() async throws {
        var configuration = try serviceConfiguration(database, apple)
        try StoreModules.register(
            in: &configuration, options: stores, environment: ProcessInfo.processInfo.environment
        )
        let logger = makeLogger("subledger.import", level: configuration.logLevel)
        let importer = MigrationImporter.Configuration(
            concurrency: concurrency, dryRun: dryRun, requestsPerSecond: requestsPerSecond,
            maximumAttempts: maximumAttempts)
        let printer = ImportProgressPrinter(isTerminal: !plainProgress && isatty(STDERR_FILENO) == 1)
        let summary = try await ImportRunner.run(
            path: file, bundleID: bundleID, service: configuration, importer: importer, progress: printer,
            logger: logger)
        printOutput(summary.text, terminator: "")
        if summary.interrupted { throw ExitCode(130) }
        if summary.progress.rowsFailed > 0 { throw ExitCode(2) }
    }
}
