import AppStore
import SubLedgerCore

/// The simulated App Store's renewal-date extensions: each subscription's extensions (for Apple's two per
/// 365 days), single requests by identifier (a repeated identifier answers the first answer) and mass requests.
struct ExtensionsBook: Sendable {
    /// One extension a subscription received.
    struct Granted: Sendable {
        var requestIdentifier: String
        var date: Instant
        var days: Int
    }

    /// A mass extension: accepted at once, completed later.
    struct MassRequest: Sendable {
        var requestIdentifier: String
        var bundleID: String
        var environment: StoreEnvironment
        var productID: String
        var days: Int
        var reasonCode: Int
        var storefrontCountryCodes: [String]?
        var submittedAt: Instant
        var complete = false
        var completeDate: Instant?
        var succeededCount: Int64 = 0
        var failedCount: Int64 = 0
    }

    /// Original transaction id → extensions, oldest first.
    var granted: [String: [Granted]] = [:]
    /// (bundle id, request identifier) → the answer body of a single extension already made.
    var singleAnswers: [String: ExtendRenewalDateResponse] = [:]
    /// (bundle id, request identifier) → a mass request.
    var massRequests: [String: MassRequest] = [:]

    static func key(bundleID: String, requestIdentifier: String) -> String { bundleID + "\u{0}" + requestIdentifier }

    /// How many extensions `originalTransactionID` received in the 365 days before `now`.
    func count(_ originalTransactionID: String, before now: Instant) -> Int {
        let start = RenewalExtensionLimits.windowStart(endingAt: now)
        return (granted[originalTransactionID] ?? []).filter { $0.date > start }.count
    }
}
