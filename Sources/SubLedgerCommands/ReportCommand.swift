import ArgumentParser
import Foundation
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerUseCases

/// `subledger report NAME [ID]`: runs one admin report and prints it as a table, JSON or CSV.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Print an admin report: \(ReportRequest.names.joined(separator: ", ")).",
        discussion: """
            subledger report summary [--at T]          chains by state, per product and entitlement
            subledger report active [--at T]           active subscribers per product: trial / intro / paid
            subledger report expiring [--within 7d]    chains whose period ends within the window
            subledger report churn [--from T --to T]   started, renewed, expired, recovered per day or month
            subledger report refunds [--from --to]     refunds and revocations with amounts
            subledger report transfers [--from --to]   ownership changes between accounts
            subledger report unclaimed                 transactions waiting for an account
            subledger report account ID                an account's timeline
            subledger report original ID               an original transaction's audit trail
            subledger report active-over-time [--days N]
            subledger report quarantined               stored inputs given up on, with their last error
            subledger report consumption [--from --to] Apple's refund questions: answers by state, deadline misses
            subledger report external-purchases        web purchases' tokens and their reports to Apple
            subledger report trials [--cohort week|month] [--from --to]   trial and intro starts, conversion
            subledger report retention [--months 24] [--currency USD]    cohorts by first payment, LTV
            subledger report mrr [--from --to --currency C]   MRR, ARR and their movement per month (docs/explanation/revenue.md)
            subledger report revenue [--by day|week|month --currency C]   gross, refunds, net, proceeds
            Times: YYYY-MM-DD (UTC), ISO 8601 with a zone, or now. See docs/explanation/reports.md.
            """)

    @Argument(help: "The report's name.")
    var name: String

    @Argument(help: "The account id (account) or original transaction id (original).")
    var id: String?

    @Option(help: "table, json or csv.")
    var format: String = "table"

    @Option(help: "Only this app (bundle id).")
    var app: String?

    @Option(help: "Only this environment (Production, Sandbox, ...).")
    var environment: String?

    @Option(help: "The instant to report at (summary, active, expiring). Default: now.")
    var at: String?

    @Option(help: "Start of the range (churn, refunds, transfers), inclusive.")
    var from: String?

    @Option(help: "End of the range (churn, refunds, transfers), exclusive. Default: now.")
    var to: String?

    @Option(help: "The window of the expiring report, like 7d or 12h. Default: 7d.")
    var within: String?

    @Option(help: "Most rows of a list report. Default: 100.")
    var limit: String?

    @Option(help: "Days of the active-over-time report. Default: 30.")
    var days: String?

    @Option(help: "Cohorts of the trials report: week or month. Default: month.")
    var cohort: String?

    @Option(help: "Months since the first payment that the retention report tracks (1-60). Default: 24.")
    var months: String?

    @Option(help: "The revenue report's period: day, week or month. Default: day.")
    var by: String?

    @Option(help: "A reporting currency (mrr, revenue, retention), converted with `subledger fx apply`'s rates.")
    var currency: String?

    @Flag(help: "Print how long the report's queries took to standard error.")
    var timing = false

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard ReportFormat(rawValue: format) != nil else {
            throw ValidationError("unknown format '\(format)': use table, json or csv")
        }
        do {
            _ = try request(now: Instant.systemNow())
        } catch let error as ReportError {
            throw ValidationError(error.description)
        }
    }

    private func request(now: Instant) throws -> ReportRequest {
        let pairs: [(String, String?)] = [
            ("app", app), ("environment", environment), ("at", at), ("from", from), ("to", to), ("within", within),
            ("limit", limit), ("days", days), ("by", by),
            ("cohort", cohort), ("months", months), ("currency", currency),
        ]
        let options = Dictionary(uniqueKeysWithValues: pairs.compactMap { key, value in value.map { (key, $0) } })
        return try ReportRequest(name: name, id: id, options: options, now: now)
    }

    func run() async throws {
        var configuration = ServiceConfiguration()
        try database.apply(to: &configuration, environment: CommandContext.current.environment)
        let logger = makeLogger("subledger.report", level: configuration.logLevel)
        let format = ReportFormat(rawValue: format) ?? .table
        let now = Instant.systemNow()
        let request = try request(now: now)
        let opened = try await DatabaseBootstrap.open(configuration, poolSize: 1, logger: logger)
        let report: AnyReport
        let freshness: ReportFreshness
        do {
            // Connect first, so --timing measures the report's queries only.
            try await opened.checkConnection()
            try await DatabaseReadiness.check(
                SecretStore(pool: opened.pool, secretKeys: configuration.secretKeys, logger: logger),
                pooler: opened.pooler, migrator: try Migrator.bundled(logger: logger))
            let clock = ContinuousClock()
            let started = clock.now
            report = try await Reports.run(request, on: opened.pool)
            if timing {
                let elapsed = clock.now - started
                printError("report \(name): \(Self.milliseconds(elapsed)) ms")
            }
            freshness = try await opened.pool.withConnection { connection in
                try ReportFreshness.read(scope: request.scope, now: now, on: connection)
            }
        } catch let error as ReportError {
            await opened.close()
            throw ValidationError(error.description)
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
        printOutput(format.render(report, freshness: freshness), terminator: "")
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f", Double(seconds) * 1_000 + Double(attoseconds) / 1e15)
    }
}
