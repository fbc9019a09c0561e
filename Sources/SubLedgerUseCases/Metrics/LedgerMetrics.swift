import Metrics
import SubLedgerCore
import SubLedgerStore

/// Counts what the ledger records: applied inputs and their entries by kind.
public enum LedgerMetrics {
    /// Records one `LedgerStore.apply`: the entries its decision made, by kind (`grant`, `extend`, `revoke`,
    /// `restore`, `transfer_in`, `transfer_out`, `credit`, `debit`), and those already recorded before.
    public static func record(_ applied: LedgerStore.Applied) {
        Counter(label: "subledger_ledger_applies_total").increment()
        let entries = applied.decision.entries
        guard !entries.isEmpty else { return }
        var byKind: [LedgerEntry.Kind: Int] = [:]
        for entry in entries { byKind[entry.kind, default: 0] += 1 }
        for (kind, count) in byKind {
            Counter(label: "subledger_ledger_entries_total", dimensions: [("kind", kind.metricName)]).increment(
                by: count)
        }
        // Entries the database already held (a replay racing the first delivery) are decided but not new.
        let repeated = entries.count - applied.newEntries
        if repeated > 0 {
            Counter(label: "subledger_ledger_entries_repeated_total").increment(by: repeated)
        }
    }
}

extension LedgerEntry.Kind {
    /// The label value: the kind in snake case, as `ledger_entries.kind` stores it.
    var metricName: String {
        switch self {
        case .grant: "grant"
        case .extend: "extend"
        case .revoke: "revoke"
        case .restore: "restore"
        case .transferOut: "transfer_out"
        case .transferIn: "transfer_in"
        case .credit: "credit"
        case .debit: "debit"
        }
    }
}
