import Foundation
import PostgresLibPQ
import SubLedgerCore

extension LedgerStore {
    /// A place where the stored ledger does not match its hash chain.
    public struct LedgerChainBreak: Sendable, Hashable, CustomStringConvertible {
        public enum Kind: String, Sendable, Hashable {
            /// The row's fields (or its link's stored hash) no longer give the link's hash.
            case changed
            /// The link names a row that is not there.
            case missing
            /// A link of the chain is missing: the links skip this number.
            case gap
            /// A ledger entry of the chain is in no link.
            case unlinked
            /// The chain's head does not name its last link (links removed from the end, or the head changed).
            case head
        }

        public var kind: Kind
        public var bundleID: String
        public var environment: String
        public var chainID: String
        /// The table of the row that does not match: `ledger_entries`, `receipts`, `notifications`,
        /// `notification_redactions`, `ledger_chain_links` (a gap) or `ledger_chain_heads`.
        public var table: String
        /// The row's id (entry, receipt or notification row id); nil for a gap or a head.
        public var id: Int64?
        /// The link's number in the chain, where there is one.
        public var seq: Int64?

        public var description: String {
            let row = id.map { "\(table) \($0)" } ?? table
            let link = seq.map { ", link \($0)" } ?? ""
            let chain = "chain \(bundleID) \(environment) \(chainID)\(link)"
            switch kind {
            case .changed: return "\(row) (\(chain)): changed: its hash does not match the chain's"
            case .missing: return "\(row) (\(chain)): missing: the chain links a row that is not there"
            case .gap: return "\(row) (\(chain)): missing: the chain has no link with this number"
            case .unlinked: return "\(row) (\(chain)): unlinked: an entry of the chain that no link holds"
            case .head: return "\(row) (\(chain)): the head does not name the chain's last link"
            }
        }

        /// The order breaks are reported in: by chain, then along it.
        var sortKey: [String] {
            [
                bundleID, environment, chainID,
                String(format: "%020lld", seq ?? Int64.max), String(format: "%020lld", id ?? 0),
            ]
        }
    }

    /// What `verifyLedgerChain` found.
    public struct LedgerChainVerification: Sendable, Hashable {
        /// Chains whose links were walked.
        public var chains = 0
        /// Links walked.
        public var links = 0
        /// Links whose row was read and hashed again (all of them, or those linked since the `since` given).
        public var rehashed = 0
        /// Links whose row an account erasure rewrote (docs/guides/accounts.md, "Erasing an account"), matched by
        /// the erasure's record linked into the chain: told apart from rows changed without one.
        public var erased = 0
        /// The first breaks found, at most one per chain, in chain order; empty: the ledger matches its chains.
        public var breaks: [LedgerChainBreak] = []

        public var isIntact: Bool { breaks.isEmpty }
    }

    /// Recomputes the ledger's hash chains (`LedgerChainHash`) and compares them with the stored links and heads:
    /// every chain of the app (`appID`; nil: every app), or, with `since`, the chains linked to since then, rehashing
    /// only their links from then on (the link before is taken as stored). Also finds ledger entries in no link.
    /// Reports at most `limit` breaks, the first of each broken chain, in chain order.
    public func verifyLedgerChain(
        appID: Int64?, since: Instant?, pageSize: Int = 1000, limit: Int = 100
    ) async throws -> LedgerChainVerification {
        try await pool.withConnection { connection in
            var bundles: [Int64: String] = [:]
            for row in try connection.query("SELECT app_id, bundle_id FROM apps") {
                bundles[try row.decode(Int64.self, at: 0)] = try row.decode(String.self, at: 1)
            }
            func bundle(_ id: Int64) -> String { bundles[id] ?? "app \(id)" }

            var result = LedgerChainVerification()
            var breaks: [LedgerChainBreak] = []
            var after = ChainPageKey(appID: 0, environment: "", chain: "")
            while breaks.count < limit {
                let heads = try connection.query(
                    Self.chainHeads(appID: appID, since: since, after: after, limit: pageSize)
                ).map { row in
                    (
                        key: ChainPageKey(
                            appID: try row.decode(Int64.self, at: 0), environment: try row.decode(String.self, at: 1),
                            chain: try row.decode(String.self, at: 2)),
                        seq: try row.decode(Int64.self, at: 3), hash: try row.decode([UInt8].self, at: 4)
                    )
                }
                guard let last = heads.last else { break }
                after = last.key
                let page = String(decoding: try JSONEncoder().encode(heads.map { $0.key }), as: UTF8.self)

                var links: [ChainPageKey: [ChainLink]] = [:]
                for row in try connection.query(Self.chainLinks(page: page, since: since)) {
                    let link = try ChainLink(row)
                    links[link.key, default: []].append(link)
                }
                var unlinked: [ChainPageKey: Int64] = [:]
                for row in try connection.query(Self.unlinkedEntries(page: page)) {
                    let key = ChainPageKey(
                        appID: try row.decode(Int64.self, at: 0), environment: try row.decode(String.self, at: 1),
                        chain: try row.decode(String.self, at: 2))
                    unlinked[key] = try row.decode(Int64.self, at: 3)
                }

                for head in heads {
                    result.chains += 1
                    func found(_ kind: LedgerChainBreak.Kind, _ table: String, _ id: Int64?, _ seq: Int64?)
                        -> LedgerChainBreak
                    {
                        LedgerChainBreak(
                            kind: kind, bundleID: bundle(head.key.appID), environment: head.key.environment,
                            chainID: head.key.chain, table: table, id: id, seq: seq)
                    }
                    let chainLinks = links[head.key] ?? []
                    // A redacted notification body: its link was hashed with the body before the chain's first
                    // redaction of it, and the body as stored must be the one after the chain's last.
                    var linkedBodies: [Int64: [UInt8]] = [:]
                    var lastRedaction: [Int64: Int64] = [:]
                    for link in chainLinks {
                        guard let redaction = link.redaction else { continue }
                        if linkedBodies[redaction.notificationID] == nil {
                            linkedBodies[redaction.notificationID] = redaction.bodyBefore
                        }
                        lastRedaction[redaction.notificationID] = link.seq
                    }
                    // An erased row: its link's hash as recorded by the chain's (last) erasure record of that link,
                    // and the digest of its fields as the erasure left them.
                    var erasedLinks: [Int64: ChainLink.ErasedRow] = [:]
                    for link in chainLinks {
                        if let record = link.erasedRow { erasedLinks[record.linkSeq] = record }
                    }
                    var previous = LedgerChainHash.genesis
                    var expected: Int64 = 1
                    var broken: LedgerChainBreak?
                    for link in chainLinks {
                        result.links += 1
                        if link.seq != expected {
                            broken = found(.gap, "ledger_chain_links", nil, expected)
                            break
                        }
                        if link.rehash, let record = erasedLinks[link.seq], record.table == link.table,
                            record.itemID == link.itemID
                        {
                            result.rehashed += 1
                            // The row as stored now (a notification with its body as stored, not as linked).
                            guard let fields = link.fields(linkedBodies: [:]) else {
                                broken = found(.missing, link.table, link.itemID, link.seq)
                                break
                            }
                            if record.linkHash != link.hash || record.fieldsAfter != LedgerChainHash.digest(fields) {
                                broken = found(.changed, link.table, link.itemID, link.seq)
                                break
                            }
                            result.erased += 1
                        } else if link.rehash {
                            result.rehashed += 1
                            guard let fields = link.fields(linkedBodies: linkedBodies) else {
                                broken = found(.missing, link.table, link.itemID, link.seq)
                                break
                            }
                            if LedgerChainHash.link(previous: previous, fields: fields) != link.hash {
                                broken = found(.changed, link.table, link.itemID, link.seq)
                                break
                            }
                            if let redaction = link.redaction, lastRedaction[redaction.notificationID] == link.seq,
                                redaction.storedBody != redaction.bodyAfter
                            {
                                broken = found(.changed, "notifications", redaction.notificationID, link.seq)
                                break
                            }
                        }
                        previous = link.hash
                        expected += 1
                    }
                    if broken == nil, head.seq != expected - 1 || head.hash != previous {
                        broken = found(.head, "ledger_chain_heads", nil, head.seq)
                    }
                    if broken == nil, let entry = unlinked[head.key] {
                        broken = found(.unlinked, "ledger_entries", entry, nil)
                    }
                    if let broken { breaks.append(broken) }
                }
            }
            // Entries of chains that have no head at all: none of their entries was ever linked.
            for row in try connection.query(Self.headlessEntries(appID: appID, since: since, limit: limit)) {
                breaks.append(
                    LedgerChainBreak(
                        kind: .unlinked, bundleID: bundle(try row.decode(Int64.self, at: 0)),
                        environment: try row.decode(String.self, at: 1),
                        chainID: try row.decode(String.self, at: 2), table: "ledger_entries",
                        id: try row.decode(Int64.self, at: 3), seq: nil))
            }
            result.breaks = Array(breaks.sorted { $0.sortKey.lexicographicallyPrecedes($1.sortKey) }.prefix(limit))
            return result
        }
    }

    /// A chain's key, as the page of chains is handed to the statements (JSON, read by `jsonb_to_recordset`).
    struct ChainPageKey: Hashable, Codable {
        var appID: Int64
        var environment: String
        var chain: String

        enum CodingKeys: String, CodingKey {
            case appID = "app_id"
            case environment
            case chain
        }
    }

    /// One link as read back, with its item's fields when the item was read.
    struct ChainLink {
        var key: ChainPageKey
        var seq: Int64
        var table: String
        var itemID: Int64
        var hash: [UInt8]
        /// Whether the item was read to be hashed again (false: before `since`).
        var rehash: Bool
        /// The item's fields; nil when the row is not there. A notification's fields stop before its body's hash: the
        /// rest is in `notification`.
        private var itemFields: LedgerChainHash.Fields?
        /// A notification's body hash as stored and its fields after the body.
        private var notification: (storedBody: [UInt8]?, rest: LedgerChainHash.Fields)?
        /// A redaction of a notification's body: which notification, and its body's hashes.
        var redaction: (notificationID: Int64, bodyBefore: [UInt8], bodyAfter: [UInt8], storedBody: [UInt8]?)?
        /// An erasure's record of a rewritten link of this chain (the link is an `erased_chain_rows` row).
        var erasedRow: ErasedRow?

        struct ErasedRow {
            var linkSeq: Int64
            var table: String
            var itemID: Int64
            var linkHash: [UInt8]
            var fieldsAfter: [UInt8]
        }

        /// The item's fields, a notification's hashed with its body as linked (`linkedBodies`, by notification row
        /// id; the body as stored where the chain has no redaction of it); nil when the row is not there.
        func fields(linkedBodies: [Int64: [UInt8]]) -> LedgerChainHash.Fields? {
            guard var fields = itemFields else { return nil }
            if let notification {
                fields.append(bytes: linkedBodies[itemID] ?? notification.storedBody)
                fields.append(contentsOf: notification.rest)
            }
            return fields
        }

        init(_ row: PostgresRow) throws {
            key = ChainPageKey(
                appID: try row.decode(Int64.self, at: 0), environment: try row.decode(String.self, at: 1),
                chain: try row.decode(String.self, at: 2))
            seq = try row.decode(Int64.self, at: 3)
            table = try row.decode(String.self, at: 4)
            itemID = try row.decode(Int64.self, at: 5)
            hash = try row.decode([UInt8].self, at: 6)
            rehash = try row.decode(Bool.self, at: 7)
            guard rehash else { return }
            var fields = LedgerChainHash.Fields()
            fields.append(text: table)
            switch table {
            case "ledger_entries":
                guard try row.decode(Bool.self, at: 8) else { return }
                fields.append(int: try row.decode(Int64.self, at: 9))
                fields.append(int: try row.decode(Int64.self, at: 10))
                fields.append(text: try row.decode(String.self, at: 11))
                fields.append(text: try row.decode(String.self, at: 12))
                fields.append(text: try row.decode(String?.self, at: 13))
                fields.append(text: try row.decode(String.self, at: 14))
                fields.append(text: try row.decode(String.self, at: 15))
                fields.append(text: try row.decode(String?.self, at: 16))
                fields.append(text: try row.decode(String.self, at: 17))
                fields.append(
                    texts: try row.decode(String?.self, at: 18).map {
                        try StoreJSON.decode([String].self, from: $0, what: "entitlement list")
                    })
                fields.append(int: try row.decode(Int64?.self, at: 19))
                fields.append(microseconds: try row.decode(Int64?.self, at: 20))
                fields.append(microseconds: try row.decode(Int64?.self, at: 21))
                fields.append(text: try row.decode(String?.self, at: 22))
                fields.append(int: try row.decode(Int64?.self, at: 23))
                fields.append(int: try row.decode(Int64?.self, at: 24))
                fields.append(microseconds: try row.decode(Int64?.self, at: 25))
            case "receipts":
                guard try row.decode(Bool.self, at: 26) else { return }
                fields.append(int: try row.decode(Int64.self, at: 27))
                fields.append(int: try row.decode(Int64?.self, at: 28))
                fields.append(text: try row.decode(String?.self, at: 29))
                fields.append(uuid: try row.decode(UUID?.self, at: 30))
                fields.append(text: try row.decode(String?.self, at: 31))
                fields.append(bytes: try row.decode([UInt8]?.self, at: 32))
                fields.append(text: try row.decode(String?.self, at: 33))
                fields.append(microseconds: try row.decode(Int64?.self, at: 34))
            case "notifications":
                guard try row.decode(Bool.self, at: 35) else { return }
                fields.append(int: try row.decode(Int64.self, at: 36))
                fields.append(int: try row.decode(Int64?.self, at: 37))
                fields.append(text: try row.decode(String?.self, at: 38))
                fields.append(text: try row.decode(String?.self, at: 39))
                fields.append(text: try row.decode(String?.self, at: 40))
                fields.append(text: try row.decode(String?.self, at: 41))
                var rest = LedgerChainHash.Fields()
                rest.append(microseconds: try row.decode(Int64?.self, at: 43))
                rest.append(microseconds: try row.decode(Int64?.self, at: 44))
                notification = (try row.decode([UInt8]?.self, at: 42), rest)
            case "notification_redactions":
                guard try row.decode(Bool.self, at: 45) else { return }
                let notificationID = try row.decode(Int64.self, at: 47)
                let before = try row.decode([UInt8].self, at: 48)
                let after = try row.decode([UInt8].self, at: 49)
                fields.append(int: try row.decode(Int64.self, at: 46))
                fields.append(int: notificationID)
                fields.append(bytes: before)
                fields.append(bytes: after)
                fields.append(microseconds: try row.decode(Int64?.self, at: 50))
                redaction = (notificationID, before, after, try row.decode([UInt8]?.self, at: 51))
            case "erased_chain_rows":
                guard try row.decode(Bool.self, at: 52) else { return }
                let record = ErasedRow(
                    linkSeq: try row.decode(Int64.self, at: 55), table: try row.decode(String.self, at: 56),
                    itemID: try row.decode(Int64.self, at: 57), linkHash: try row.decode([UInt8].self, at: 58),
                    fieldsAfter: try row.decode([UInt8].self, at: 59))
                fields.append(int: try row.decode(Int64.self, at: 53))
                fields.append(int: try row.decode(Int64.self, at: 54))
                fields.append(int: record.linkSeq)
                fields.append(text: record.table)
                fields.append(int: record.itemID)
                fields.append(bytes: record.linkHash)
                fields.append(bytes: record.fieldsAfter)
                fields.append(microseconds: try row.decode(Int64?.self, at: 60))
                erasedRow = record
            default:
                return
            }
            itemFields = fields
        }
    }

    /// A page of chain heads after a key, of one app (or all: NULL), changed since a moment (or ever: NULL).
    static func chainHeads(appID: Int64?, since: Instant?, after: ChainPageKey, limit: Int) -> PostgresQuery {
        """
        SELECT h.app_id, h.environment, h.original_transaction_id, h.seq, h.hash
        FROM ledger_chain_heads h
        WHERE (\(appID)::bigint IS NULL OR h.app_id = \(appID)) AND (\(timestamp(since))::timestamptz IS NULL OR h.updated_at >= \(timestamp(since)))
          AND (h.app_id, h.environment, h.original_transaction_id) > (\(after.appID)::bigint, \(after.environment)::text, \(after.chain)::text)
        ORDER BY h.app_id, h.environment, h.original_transaction_id
        LIMIT \(Int64(limit))
        """
    }

    /// The links of a page of chains, in order, each with the columns its item is hashed from (read only for links
    /// made since `since`, when given). Timestamps are read as microseconds since 1970, not as text.
    static func chainLinks(page: String, since: Instant?) -> PostgresQuery {
        """
        WITH page AS (SELECT * FROM jsonb_to_recordset(\(page)::jsonb) AS p(app_id bigint, environment text, chain text)),
        links AS (
            SELECT l.*, (\(timestamp(since))::timestamptz IS NULL OR l.linked_at >= \(timestamp(since))) AS rehash
            FROM page p JOIN ledger_chain_links l
              ON l.app_id = p.app_id AND l.environment = p.environment AND l.original_transaction_id = p.chain)
        SELECT l.app_id, l.environment, l.original_transaction_id, l.seq, l.item_table, l.item_id, l.hash, l.rehash,
            e.entry_id IS NOT NULL, e.entry_id, e.app_id, e.idempotency_key, e.kind, e.account_id, e.environment,
            e.original_transaction_id, e.transaction_id, e.product_id, to_jsonb(e.entitlement_ids)::text, e.credits,
            (extract(epoch FROM e.effective_at) * 1000000)::bigint, (extract(epoch FROM e.period_end) * 1000000)::bigint,
            e.reason, e.receipt_id, e.notification_row_id, (extract(epoch FROM e.recorded_at) * 1000000)::bigint,
            r.receipt_id IS NOT NULL, r.receipt_id, r.app_id, r.account_id, r.order_id, r.kind,
            sha256(convert_to(r.body, 'UTF8')), r.client_transaction_id,
            (extract(epoch FROM r.received_at) * 1000000)::bigint,
            n.notification_row_id IS NOT NULL, n.notification_row_id, n.app_id, n.notification_id, n.version,
            n.notification_type, n.subtype, sha256(convert_to(n.body, 'UTF8')),
            (extract(epoch FROM n.signed_at) * 1000000)::bigint, (extract(epoch FROM n.received_at) * 1000000)::bigint,
            d.redaction_id IS NOT NULL, d.redaction_id, d.notification_row_id, d.body_sha256_before,
            d.body_sha256_after, (extract(epoch FROM d.redacted_at) * 1000000)::bigint,
            sha256(convert_to(dn.body, 'UTF8')),
            x.erased_row_id IS NOT NULL, x.erased_row_id, x.erasure_id, x.link_seq, x.item_table, x.item_id,
            x.link_hash, x.fields_sha256_after, (extract(epoch FROM x.erased_at) * 1000000)::bigint
        FROM links l
        LEFT JOIN ledger_entries e ON l.rehash AND l.item_table = 'ledger_entries' AND e.app_id = l.app_id
            AND e.environment = l.environment AND e.original_transaction_id = l.original_transaction_id
            AND e.entry_id = l.item_id
        LEFT JOIN receipts r ON l.rehash AND l.item_table = 'receipts' AND r.receipt_id = l.item_id
        LEFT JOIN notifications n ON l.rehash AND l.item_table = 'notifications' AND n.notification_row_id = l.item_id
        LEFT JOIN notification_redactions d
            ON l.rehash AND l.item_table = 'notification_redactions' AND d.redaction_id = l.item_id
        LEFT JOIN notifications dn ON dn.notification_row_id = d.notification_row_id
        LEFT JOIN erased_chain_rows x
            ON l.rehash AND l.item_table = 'erased_chain_rows' AND x.erased_row_id = l.item_id
        ORDER BY l.app_id, l.environment, l.original_transaction_id, l.seq
        """
    }

    /// The first ledger entry of each chain of a page that no link holds.
    static func unlinkedEntries(page: String) -> PostgresQuery {
        """
        SELECT e.app_id, e.environment, e.original_transaction_id, min(e.entry_id)
        FROM jsonb_to_recordset(\(page)::jsonb) AS p(app_id bigint, environment text, chain text)
        JOIN ledger_entries e
          ON e.app_id = p.app_id AND e.environment = p.environment AND e.original_transaction_id = p.chain
        WHERE NOT EXISTS (
            SELECT 1 FROM ledger_chain_links l
            WHERE l.app_id = e.app_id AND l.environment = e.environment
              AND l.original_transaction_id = e.original_transaction_id
              AND l.item_table = 'ledger_entries' AND l.item_id = e.entry_id)
        GROUP BY 1, 2, 3
        """
    }

    /// The first entry of each chain that has entries but no head (of one app or all, recorded since a moment or
    /// ever), in chain order.
    static func headlessEntries(appID: Int64?, since: Instant?, limit: Int) -> PostgresQuery {
        """
        SELECT e.app_id, e.environment, e.original_transaction_id, min(e.entry_id)
        FROM ledger_entries e
        WHERE (\(appID)::bigint IS NULL OR e.app_id = \(appID)) AND (\(timestamp(since))::timestamptz IS NULL OR e.recorded_at >= \(timestamp(since)))
          AND NOT EXISTS (
            SELECT 1 FROM ledger_chain_heads h
            WHERE h.app_id = e.app_id AND h.environment = e.environment
              AND h.original_transaction_id = e.original_transaction_id)
        GROUP BY 1, 2, 3
        ORDER BY 1, 2, 3
        LIMIT \(Int64(limit))
        """
    }
}
