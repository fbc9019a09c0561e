import ArgumentParser
import SubLedgerCore
import SubLedgerStore

/// `subledger inputs requeue`: puts quarantined receipts and notifications back in the renewal job's queue.
struct InputsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inputs",
        abstract: "Stored receipts and notifications (see `subledger report quarantined`).",
        subcommands: [Requeue.self])

    struct Requeue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "requeue",
            abstract: "Put quarantined inputs back to be retried by the renewal job (`subledger poll`).",
            discussion: """
                Name one input as `subledger report quarantined` lists it (`--receipt ID` or `--notification ID`), \
                or every quarantined input of an app (`--app BUNDLE_ID`). The inputs become due at once, with \
                the full number of attempts again; their last error records the re-queue until the next attempt.
                """)

        @Option(help: "The id of a quarantined receipt.") var receipt: Int64?
        @Option(help: "The id of a quarantined notification.") var notification: Int64?
        @Option(help: "Every quarantined input of this app.") var app: String?
        @Flag(help: "List what would be re-queued; change nothing.") var dryRun = false
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            let given = [receipt != nil, notification != nil, app != nil].filter { $0 }.count
            guard given == 1 else { throw ValidationError("give exactly one of --receipt, --notification and --app") }
            if let app, !IdentifierRule.bundleID.accepts(app) { throw ValidationError("--app is not a bundle id") }
        }

        func run() async throws {
            let requeued = try await withLedgerStore(database, label: "subledger.inputs") { store in
                let selection: LedgerStore.RequeueSelection
                if let receipt {
                    selection = .input(.receipt, id: receipt)
                } else if let notification {
                    selection = .input(.notification, id: notification)
                } else {
                    guard let app, let stored = try await store.app(bundleID: app) else {
                        throw ValidationError("no app \(app ?? "") is configured")
                    }
                    selection = .app(appID: stored.appID)
                }
                return try await store.requeueQuarantined(selection, dryRun: dryRun, now: Instant.systemNow())
            }
            for input in requeued {
                printOutput("\(input.kind.rawValue) \(input.id): \(input.lastError ?? "(no error recorded)")")
            }
            let verb = dryRun ? "would re-queue" : "re-queued"
            printOutput("\(verb) \(requeued.count) quarantined input(s)")
            if requeued.isEmpty, receipt != nil || notification != nil {
                throw ValidationError("no quarantined input has that id")
            }
        }
    }
}
