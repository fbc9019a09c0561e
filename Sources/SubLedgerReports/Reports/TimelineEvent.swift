import SubLedgerCore

/// One dated fact in an account's timeline or a chain's audit trail.
public struct TimelineEvent: Sendable, Hashable, Codable {
    /// What kind of fact it is; the order of the cases is the order of facts recorded at the same instant
    /// (inputs first, then what they caused).
    public enum Category: String, Sendable, Hashable, Codable, CaseIterable {
        case receipt
        case notification
        case transaction
        case stateChange = "state_change"
        case bindingEnded = "binding_ended"
        case bindingStarted = "binding_started"
        case ledgerEntry = "ledger_entry"
        case entitlementGained = "entitlement_gained"
        case entitlementLost = "entitlement_lost"

        var rank: Int { Self.allCases.firstIndex(of: self) ?? Self.allCases.count }
    }

    public var at: Instant
    public var category: Category
    public var bundleID: String
    public var environment: String?
    public var originalTransactionID: String?
    public var transactionID: String?
    public var productID: String?
    public var accountID: String?
    /// Ledger entry kind, new chain state, receipt kind, notification type or transaction source.
    public var kind: String?
    /// Entry reason, expiration reason, binding reason, receipt status or notification subtype.
    public var reason: String?
    /// The end of the period an entry or transaction covers.
    public var until: Instant?
    /// A category-specific remark: entitlement ids, the previous state, the other account, a notification id.
    public var note: String?
    /// The row's id in its table (`entry_id`, `binding_id`, `change_id`, `receipt_id`, `notification_row_id`).
    public var rowID: Int64?

    /// A one-line description for tables and the admin page.
    public var summary: String {
        var text: String
        switch category {
        case .ledgerEntry:
            text = (kind ?? "entry") + (reason.map { " (\($0))" } ?? "")
            if let note, !note.isEmpty { text += " [\(note)]" }
        case .entitlementGained, .entitlementLost:
            text = (category == .entitlementGained ? "gains " : "loses ") + (note ?? "")
        case .bindingStarted:
            text =
                "owner: \(accountID ?? "?")" + (note.map { " (from \($0))" } ?? "") + (reason.map { ", \($0)" } ?? "")
        case .bindingEnded:
            text = "owner \(accountID ?? "?") ends" + (reason.map { ", \($0)" } ?? "")
        case .stateChange:
            text = (note ?? "new") + " -> " + (kind ?? "?") + (reason.map { " (\($0))" } ?? "")
        case .transaction:
            text =
                "transaction \(transactionID ?? "")" + (kind.map { " via \($0)" } ?? "")
                + (note.map { ", \($0)" } ?? "")
        case .receipt:
            text = "receipt #\(rowID.map(String.init) ?? "?") \(kind ?? "")" + (reason.map { ", \($0)" } ?? "")
        case .notification:
            text = "notification \(kind ?? "?")" + (reason.map { "/\($0)" } ?? "") + (note.map { " \($0)" } ?? "")
        }
        if let until { text += " until \(ReportFormat.timestamp(until))" }
        return text
    }
}

extension TimelineEvent {
    /// Time order; facts of one instant in category order, then by row id.
    static func chronological(_ events: [TimelineEvent]) -> [TimelineEvent] {
        events.sorted {
            ($0.at, $0.category.rank, $0.rowID ?? 0, $0.transactionID ?? "")
                < ($1.at, $1.category.rank, $1.rowID ?? 0, $1.transactionID ?? "")
        }
    }
}
