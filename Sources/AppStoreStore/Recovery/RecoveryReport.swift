import SubLedgerCore
import SubLedgerUseCases

/// What one recovery did, per app and environment.
public struct RecoveryReport: Sendable, Hashable, CustomStringConvertible {
    /// How the run of one app and environment ended.
    public enum Result: String, Sendable, Hashable, CaseIterable {
        /// Every window up to now was fetched and applied; the cursor is at the run's end.
        case complete
        /// Stopped early (shutdown, Apple failing midway): the cursor kept the windows that were done.
        case partial
        /// Nothing could be fetched (Apple failing, the circuit breaker open, the database): the cursor is unchanged.
        case failed
        /// The app has no App Store Server API credentials.
        case skipped
        /// Another process holds this cursor's lease and is recovering it now.
        case busy
    }

    /// One app and environment.
    public struct Unit: Sendable, Hashable, CustomStringConvertible {
        public var bundleID: String
        public var environment: StoreEnvironment
        public var result: Result
        /// Notifications Apple's history held that had not been applied, and now are.
        public var applied = 0
        /// Notifications that had arrived already (no-ops).
        public var alreadyHad = 0
        /// Authentic notifications that can never apply (logged with their UUIDs).
        public var rejected = 0
        /// Notifications stored but not applied yet (applying failed): the renewal job retries them.
        public var deferred = 0
        /// The span asked of Apple (`from` nil when nothing was asked).
        public var from: Instant?
        public var to: Instant?
        /// The start the run wanted, when it lay beyond Apple's 180 days and was moved to the earliest allowed.
        public var clampedFrom: Instant?
        /// The cursor afterwards.
        public var completeUntil: Instant?
        /// Why it stopped early or failed.
        public var error: String?

        public var description: String {
            var text = "\(bundleID) \(environment.rawValue): \(result.rawValue)"
            if let from, let to {
                text += " [\(RFC3339.format(from))\u{2009}–\u{2009}\(RFC3339.format(to)))"
            }
            if result != .skipped && result != .busy {
                text += ", recovered \(applied), already had \(alreadyHad)"
                if rejected > 0 { text += ", rejected \(rejected)" }
                if deferred > 0 { text += ", stored for the renewal job \(deferred)" }
            }
            if let clampedFrom {
                text +=
                    "; the start \(RFC3339.format(clampedFrom)) was beyond Apple's 180 days and was clamped"
            }
            if let completeUntil { text += "; history complete until \(RFC3339.format(completeUntil))" }
            if let error { text += "; \(error)" }
            return text
        }
    }

    public var units: [Unit] = []

    public init(units: [Unit] = []) {
        self.units = units
    }

    /// Notifications newly applied, over all units.
    public var applied: Int { units.reduce(0) { $0 + $1.applied } }
    /// Notifications already had, over all units.
    public var alreadyHad: Int { units.reduce(0) { $0 + $1.alreadyHad } }
    /// Whether any unit failed or stopped early.
    public var hasFailures: Bool { units.contains { $0.result == .failed || $0.result == .partial } }

    public var description: String {
        units.isEmpty ? "no app with notification history to recover" : units.map(\.description).joined(separator: "\n")
    }
}
