import PostgresLibPQ
import SubLedgerCore

/// The ledger's hash chain (`ledger_chain_links`, `ledger_chain_heads`; see `LedgerChainHash`), written by each apply.
///
/// An apply writes each link with its item, in its own round trip and under the chains' locks it holds (which is
/// what serializes two applies on one chain here too): first the input's link in each chain the decision changed
/// (`linkInput`), then each new ledger entry's link in the statement that inserts it (`EntryRows.insertLinked`,
/// schema step 62). Both move the chain's head in the same statement. On a Citus cluster, and for the other writers
/// of entries (manual grants, merges' grants), the links follow the rows: `ledger_chain_link` per chain appends the
/// input and whatever entries of the chain are newer than its head. The two ways keep one chain.
enum LedgerChainRows {
    /// An input as its links hash it: its table and row id, and its fields in the canonical encoding.
    struct LinkedInput {
        var table: String
        var id: Int64
        var fields: [UInt8]
        /// Stored in this transaction: no chain links it yet, so no link of it is looked for.
        var storedNow: Bool
    }

    /// The chains an apply's decision changed: its updated chains and those its entries are on, in key order.
    static func chains(of decision: LedgerDecision) -> [ChainKey] {
        var chains = Set(decision.updatedChains.map(\.key))
        for entry in decision.entries {
            chains.insert(ChainKey(environment: entry.environment, chainID: entry.chainID))
        }
        return chains.sorted()
    }

    /// The fields of a stored input, encoded by the database (`ledger_chain_fields`, which hashes the body), read in
    /// an apply's first round trip; nil without an input, or when its row is not there (nothing is then linked).
    static func storedInput(_ reference: LedgerStore.InputReference, into batch: inout PostgresBatch) -> Batched<
        LinkedInput?
    > {
        let table: String
        let id: Int64
        let query: PostgresQuery
        switch reference {
        case .submission(let receipt):
            (table, id) = ("receipts", receipt)
            query = "SELECT ledger_chain_fields(r) FROM receipts r WHERE r.receipt_id = \(receipt)"
        case .notification(let notification):
            (table, id) = ("notifications", notification)
            query = "SELECT ledger_chain_fields(n) FROM notifications n WHERE n.notification_row_id = \(notification)"
        case .none:
            return .constant(nil)
        }
        let index = batch.append(query)
        return Batched { rows in
            guard let fields = try rows[index].first?.decode([UInt8]?.self, at: 0) else { return nil }
            return LinkedInput(table: table, id: id, fields: fields, storedNow: false)
        }
    }

    /// Links `input` in each of `chains` (in key order) where no link of it is yet, one statement per chain that
    /// appends the link and moves the head (creating it for a chain's first link), before the entries' statements.
    static func linkInput(_ input: LinkedInput?, chains: [ChainKey], appID: Int64, into batch: inout PostgresBatch) {
        guard let input else { return }
        for key in chains { batch.append(linkInput(input, key, appID: appID)) }
    }

    static func linkInput(_ input: LinkedInput, _ key: ChainKey, appID: Int64) -> PostgresQuery {
        let chain = chainValues(key, appID: appID)
        // A stored input may be linked in this chain already (an input applied again after a failure that left its
        // effects: the links are in the same transaction as those, so this looks up what is there).
        let unlinked: PostgresQuery =
            input.storedNow
            ? "TRUE"
            : """
            NOT EXISTS (
                SELECT FROM ledger_chain_links l
                WHERE l.app_id = \(appID) AND l.environment = \(key.environment.rawValue)
                  AND l.original_transaction_id = \(key.chainID) AND l.item_table = \(input.table)
                  AND l.item_id = \(input.id))
            """
        return """
            WITH head AS (
                \(headForUpdate(key, appID: appID))
            ),
            link AS (
                SELECT coalesce(head.seq, 0) + 1 AS seq, coalesce(head.last_entry_id, 0) AS last_entry_id,
                    sha256(coalesce(head.hash, \(LedgerChainHash.genesis)::bytea) || \(input.fields)::bytea) AS hash
                FROM (VALUES (1)) AS one (n) LEFT JOIN head ON true
                WHERE \(unlinked)
            ),
            moved AS (
                \(moveHead(chain))
            )
            INSERT INTO ledger_chain_links (app_id, environment, original_transaction_id, seq, item_table, item_id, hash)
            SELECT \(chain), link.seq, \(input.table), \(input.id), link.hash FROM link
            """
    }

    /// Chain `key`'s key as the three values a link's or a head's row starts with.
    static func chainValues(_ key: ChainKey, appID: Int64) -> PostgresQuery {
        "\(appID)::bigint, \(key.environment.rawValue)::text, \(key.chainID)::text"
    }

    /// Chain `key`'s head (`seq`, `last_entry_id`, `hash`; no row before its first link), locked until the
    /// transaction ends: the CTE `head` of a statement that links.
    static func headForUpdate(_ key: ChainKey, appID: Int64) -> PostgresQuery {
        """
        SELECT h.seq, h.last_entry_id, h.hash FROM ledger_chain_heads h
        WHERE h.app_id = \(appID) AND h.environment = \(key.environment.rawValue)
          AND h.original_transaction_id = \(key.chainID)
        FOR UPDATE
        """
    }

    /// The statement (a CTE of a statement that links in chain `chain`, the chain's key as three values) that moves
    /// the chain's head to the link its CTE `link` computed (`seq`, `last_entry_id`, `hash`), or creates the head with
    /// it. That CTE read the head `FOR UPDATE`, so nothing moved it since. The update reads only the proposed row (a
    /// Citus cluster refuses any function there); `updated_at` is the proposed row's default, the statement's `now()`.
    static func moveHead(_ chain: PostgresQuery) -> PostgresQuery {
        """
        INSERT INTO ledger_chain_heads AS h (app_id, environment, original_transaction_id, seq, last_entry_id, hash)
        SELECT \(chain), link.seq, link.last_entry_id, link.hash FROM link
        ON CONFLICT (app_id, environment, original_transaction_id) DO UPDATE
        SET seq = excluded.seq, last_entry_id = excluded.last_entry_id, hash = excluded.hash,
            updated_at = excluded.updated_at
        """
    }

    /// Links, in each chain `decision` changed (in key order), the input the apply came from and then the chain's
    /// entries newer than its head, after those entries' statements in `batch`: one `ledger_chain_link` per chain, for
    /// an apply on a Citus cluster (`StoredApp.onCitus`). Tells how many links were added.
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
        let indices = chains(of: decision).map {
            batch.append(link($0, appID: appID, submissionID: submissionID, notificationID: notificationID))
        }
        return Batched { rows in
            try indices.reduce(0) { total, index in total + Int(try rows[index].single().decode(Int32.self, at: 0)) }
        }
    }

    /// Links, after the statements before it in its batch, the input named and then the entries of chain `key` newer
    /// than its head (`ledger_chain_link`, schema steps 24 and 35): for writers that insert entries without linking
    /// them. Tells how many links were added.
    static func link(_ key: ChainKey, appID: Int64, submissionID: Int64?, notificationID: Int64?) -> PostgresQuery {
        """
        SELECT ledger_chain_link(\(appID)::bigint, \(key.environment.rawValue)::text, \(key.chainID)::text,
            \(submissionID)::bigint, \(notificationID)::bigint)
        """
    }
}
