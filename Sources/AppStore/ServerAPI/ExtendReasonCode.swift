import Foundation

/// Apple's `extendReasonCode`: why a subscription's renewal date is extended.
public enum ExtendReasonCode: Int, Sendable, Hashable, CaseIterable, Codable {
    /// 0: no reason given.
    case undeclared = 0
    /// 1: to keep a customer satisfied.
    case customerSatisfaction = 1
    /// 2: another reason.
    case other = 2
    /// 3: the app's service had an issue or an outage.
    case serviceIssueOrOutage = 3

    /// The name SubLedger's command line and records use (`service_issue_or_outage`).
    public var name: String {
        switch self {
        case .undeclared: "undeclared"
        case .customerSatisfaction: "customer_satisfaction"
        case .other: "other"
        case .serviceIssueOrOutage: "service_issue_or_outage"
        }
    }

    /// The reason of a name (`customer_satisfaction`, case-insensitive; `-` reads as `_`), or nil.
    public init?(name: String) {
        let normalized = name.lowercased().replacingOccurrences(of: "-", with: "_")
        guard let found = Self.allCases.first(where: { $0.name == normalized }) else { return nil }
        self = found
    }
}
