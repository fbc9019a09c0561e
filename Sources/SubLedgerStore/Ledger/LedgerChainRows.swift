import PostgresLibPQ
import SubLedgerCore

/// The ledger's hash chain (`ledger_chain_links`, `ledger_chain_heads`; see `LedgerChainHash`), written by each apply.
enum LedgerChainRows {
    /// Links, in each chain `decision` changed, the input the apply came from and then the chain's new entries,
    /// after those entries' statements in `batch` (docs/guides/operate.md, "Verifying the ledger"). One statement per
    /// chain, in key order, in the apply's round trip; the apply holds each chain's lock, which is what serializes
    /// two applies on one chain here too. Tells how many links were added.
    static func link(
        _ decision: LedgerDecision, reference: LedgerStore.InputReference, appID: Int64, into batch: inout PostgresBatch
    ) -> Batched<Int> {
        var submissionID: Int64?
        var notificationID: Int64?
        switch reference {
        case .submission(let id): submissionID = id
        case .notification(let id): notificationID = id
        case .none: break
        }
        var chains = Set(decision.updatedChains.map(\.key))
        for entry in decision.entries {
            chains.insert(ChainKey(environment: entry.environment, chainID: entry.chainID))
        }
        var indices: [Int] = []
        for key in chains.sorted() {
            indices.append(
                batch.append(link(key, appID: appID, submissionID: submissionID, notificationID: notificationID)))
        }
        return Batched { rows in
            try indices.reduce(0) { total, index in total + Int(try rows[index].single().decode(Int32.self, at: 0)) }
        }
    }

    static func link(_ key: ChainKey, appID: Int64, submissionID: Int64?, notificationID: Int64?) -> PostgresQuery {
        """
        SELECT ledger_chain_link(\(appID)::bigint, \(key.environment.rawValue)::text, \(key.chainID)::text,
            \(submissionID)::bigint, \(notificationID)::bigint)
        """
    }
}
