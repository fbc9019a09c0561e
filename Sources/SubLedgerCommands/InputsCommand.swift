import ArgumentParser
import Foundation
import SubLedgerCore
import SubLedgerStore

/// `subledger inputs requeue`: puts quarantined receipts and notifications back in the renewal job's queue;
/// `subledger inputs history`: one input's state and what was done to it.
struct InputsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inputs",
        abstract: "Stored receipts and notifications (see `subledger report quarantined`).",
        subcommands: [Requeue.self, History.self])

    struct Requeue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "requeue",
            abstract: "Put quarantined inputs back to be retried by the renewal job (`subledger poll`).",
            discussion: """
                Name one input as `subledger report quarantined` lists it (`--receipt ID` or `--notification ID`), \
                or every quarantined input of an app (`--app BUNDLE_ID`). The inputs become due at once, with \
                the full number of attempts again. Each re-queue is recorded in the input's history (`subledger \
                inputs history`) with the time, this command and the user running it, and the state it left; the \
                last error also notes it until the next attempt.
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
            let requeued = try await withStores(database, label: "subledger.inputs") { stores in
                let selection: LedgerStore.RequeueSelection
                if let receipt {
                    selection = .input(.submission, id: receipt)
                } else if let notification {
                    selection = .input(.notification, id: notification)
                } else {
                    guard let app, let stored = try await stores.catalog.app(bundleID: app) else {
                        throw ValidationError("no app \(app ?? "") is configured")
                    }
                    selection = .app(appID: stored.appID)
                }
                return try await stores.ledger.requeueQuarantined(
                    selection, dryRun: dryRun, actor: InputsCommand.actor("subledger inputs requeue"),
                    now: Instant.systemNow())
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

    /// Who runs `command`: the command, with the operating-system user and host, as the history records it.
    static func actor(_ command: String) -> String {
        let environment = CommandContext.current.environment
        let user = environment["USER"] ?? environment["LOGNAME"] ?? "unknown user"
        return "\(command) (\(user) on \(ProcessInfo.processInfo.hostName))"
    }

    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "Show a stored receipt's or notification's state and its recorded history (re-queues).")

        @Option(help: "The id of a receipt.") var receipt: Int64?
        @Option(help: "The id of a notification.") var notification: Int64?
        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            guard (receipt == nil) != (notification == nil) else {
                throw ValidationError("give exactly one of --receipt and --notification")
            }
        }

        func run() async throws {
            let kind: LedgerStore.StoredInputKind = receipt != nil ? .submission : .notification
            let id = receipt ?? notification ?? 0
            let history = try await withStores(database, label: "subledger.inputs") { stores in
                try await stores.ledger.inputHistory(kind, id: id)
            }
            guard let history else { throw ValidationError("no \(kind.rawValue) has the id \(id)") }
            printOutput(Self.render(history), terminator: "")
        }

        static func render(_ history: LedgerStore.InputHistory) -> String {
            func iso(_ instant: Instant) -> String { RFC3339.format(instant) }
            var text = "\(history.kind.rawValue) \(history.id): \(history.status), \(history.attempts) attempt(s)\n"
            text += "  received \(iso(history.receivedAt))\n"
            if let applied = history.appliedAt { text += "  applied \(iso(applied))\n" }
            if let error = history.lastError { text += "  last error: \(error)\n" }
            if history.events.isEmpty { text += "  no recorded events\n" }
            for event in history.events {
                text +=
                    "  \(iso(event.occurredAt)) \(event.event) by \(event.actor); was \(event.previousStatus) after "
                text += "\(event.previousAttempts) attempt(s)"
                text += event.previousError.map { " with: \($0)" } ?? ""
                text += "\n"
            }
            return text
        }
    }
}
