import AppStoreStore
import ArgumentParser
import Foundation
import SubLedgerUseCases

/// How missed-notification recovery runs: flags, else environment, else the defaults.
struct RecoveryOptions: ParsableArguments {
    @Option(
        name: .customLong("recovery-interval"),
        help:
            "Seconds between missed-notification recoveries while polling; 0 turns recovery off (env SUBLEDGER_RECOVERY_INTERVAL_SECONDS, default 3600)."
    )
    var recoveryInterval: Double?

    @Option(
        name: .customLong("recovery-margin"),
        help:
            "Seconds before its cursor each recovery starts again, for notifications Apple lists late (env SUBLEDGER_RECOVERY_MARGIN_SECONDS, default 3600)."
    )
    var recoveryMargin: Double?

    /// The recovery's configuration for `worker`; for polling (`polling`), `nil` when the interval is 0
    /// (recovery off). A single run (`notifications recover`) ignores the interval.
    func configuration(worker: String, polling: Bool = true, environment: [String: String]) throws
        -> NotificationRecovery.Configuration?
    {
        var configuration = NotificationRecovery.Configuration(worker: worker)
        if let margin = try seconds(recoveryMargin, EnvironmentVariable.recoveryMargin, environment) {
            guard margin <= .seconds(30 * 86_400) else {
                throw ValidationError("\(EnvironmentVariable.recoveryMargin) must be at most 30 days")
            }
            configuration.margin = margin
        }
        guard polling else { return configuration }
        let interval =
            try recoveryInterval
            ?? environment[EnvironmentVariable.recoveryInterval].map { text -> Double in
                guard let value = Double(text) else {
                    throw ValidationError(
                        "\(EnvironmentVariable.recoveryInterval) must be a number of seconds, not '\(text)'")
                }
                return value
            }
        if interval == 0 { return nil }
        if let interval = try seconds(interval, EnvironmentVariable.recoveryInterval, environment) {
            configuration.interval = interval
        }
        return configuration
    }
}
