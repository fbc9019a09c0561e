import PostgresLibPQ
import SubLedgerCore

/// What the admin page shows about cohorts: the `retention` and `trials` reports exactly as
/// `subledger report retention` and `subledger report trials` print them with their defaults, at the same moment.
public struct CohortsPanel: Sendable, Hashable {
    public var retention: RetentionReport
    public var trials: TrialsReport

    public init(retention: RetentionReport, trials: TrialsReport) {
        self.retention = retention
        self.trials = trials
    }

    /// Runs both reports with their default arguments at `now`, over every app and environment.
    public static func load(on connection: PostgresConnection, now: Instant) throws -> CohortsPanel {
        guard
            case .retention(let retention) = try Reports.run(
                ReportRequest(name: "retention", options: [:], now: now), on: connection),
            case .trials(let trials) = try Reports.run(
                ReportRequest(name: "trials", options: [:], now: now), on: connection)
        else {
            // Unreachable: each name builds its own kind.
            throw ReportError(code: .unknownReport, message: "the cohort reports could not be run")
        }
        return CohortsPanel(retention: retention, trials: trials)
    }
}
