import Crypto
import Foundation

/// The hash chain over each subscription chain's ledger entries and stored inputs (docs/guides/operate.md, "Verifying
/// the ledger"), computed here as `ledger verify` recomputes it. The database writes the links with the SQL functions
/// of `migrations/0024_ledger_chain.sql` (`ledger_chain_field`, `ledger_chain_fields`, `ledger_chain_link`); this is
/// the same encoding written again, so a verifier does not trust the functions stored in the database it checks.
///
/// Per chain (app, environment, original transaction id), link n's hash is
/// `SHA-256(hash of link n-1 || fields of its item)`, link 0's hash being 32 zero bytes (`genesis`).
///
/// The fields are a canonical encoding independent of PostgreSQL's text rendering: each field is a 4-byte
/// big-endian length and then its bytes; a NULL is the length -1 (`ff ff ff ff`) with no bytes. Text is its UTF-8
/// bytes; a bigint 8 bytes big-endian; a timestamp its microseconds since 1970-01-01 UTC as a bigint; a uuid its 16
/// bytes; a text array a 4-byte big-endian count followed by each element as a field; a stored body the 32 bytes of
/// the SHA-256 of its UTF-8 text. An item's fields start with its table's name:
///   - `ledger_entries`: entry_id, app_id, idempotency_key, kind, account_id, environment,
///     original_transaction_id, transaction_id, product_id, entitlement_ids, credits, effective_at, period_end,
///     reason, receipt_id, notification_row_id, recorded_at;
///   - `receipts`: receipt_id, app_id, account_id, order_id, kind, SHA-256(body), client_transaction_id,
///     received_at;
///   - `notifications`: notification_row_id, app_id, notification_id, version, notification_type, subtype,
///     SHA-256(body), signed_at, received_at (the body as linked: a later redaction, below, keeps its hash);
///   - `notification_redactions` (migrations/0026): redaction_id, notification_row_id, SHA-256(body before),
///     SHA-256(body after), redacted_at;
///   - `erased_chain_rows` (migrations/0047): erased_row_id, erasure_id, link_seq, item_table, item_id, link_hash,
///     SHA-256(fields of the rewritten row as the erasure left it), erased_at. The rewritten row's own link is then
///     checked against the record (its stored hash equals `link_hash`, its fields' digest the record's), not rehashed.
/// An input's processing state (status, attempts, errors, leases, environment, applied_at) changes after it is
/// linked and is not hashed.
public enum LedgerChainHash {
    /// The hash before a chain's first link.
    public static let genesis = [UInt8](repeating: 0, count: 32)

    /// One item's fields, in the canonical encoding, appended in order.
    public struct Fields: Sendable, Hashable {
        public private(set) var bytes: [UInt8] = []

        public init() {}

        /// A field of raw bytes (or NULL).
        public mutating func append(bytes value: [UInt8]?) {
            guard let value else {
                bytes += [0xff, 0xff, 0xff, 0xff]
                return
            }
            bytes += Self.bigEndian(UInt32(value.count))
            bytes += value
        }

        /// The fields of `other`, appended as they are (not as one field).
        public mutating func append(contentsOf other: Fields) {
            bytes += other.bytes
        }

        /// A text field: its UTF-8 bytes.
        public mutating func append(text value: String?) {
            append(bytes: value.map { Array($0.utf8) })
        }

        /// A bigint field: 8 bytes, big-endian.
        public mutating func append(int value: Int64?) {
            append(bytes: value.map { Self.bigEndian(UInt64(bitPattern: $0)) })
        }

        /// A timestamp field: microseconds since 1970-01-01 UTC, as a bigint.
        public mutating func append(microseconds value: Int64?) {
            append(int: value)
        }

        /// A uuid field: its 16 bytes.
        public mutating func append(uuid value: UUID?) {
            append(
                bytes: value.map { uuid in
                    withUnsafeBytes(of: uuid.uuid) { Array($0) }
                })
        }

        /// A text array field: the element count (4 bytes, big-endian), then each element as a text field.
        public mutating func append(texts value: [String]?) {
            guard let value else {
                append(bytes: nil)
                return
            }
            var inner = Fields()
            inner.bytes = Self.bigEndian(UInt32(value.count))
            for element in value { inner.append(text: element) }
            append(bytes: inner.bytes)
        }

        private static func bigEndian(_ value: UInt32) -> [UInt8] {
            (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
        }

        private static func bigEndian(_ value: UInt64) -> [UInt8] {
            (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
        }
    }

    /// A stored notification's fields (`notifications`), its body as stored: what an apply links when it stores the
    /// notification itself, without reading the row back. Timestamps in microseconds since 1970, as stored.
    public static func notificationFields(
        rowID: Int64, appID: Int64, notificationID: String, version: String, type: String?, subtype: String?,
        body: String, signedAt: Int64?, receivedAt: Int64
    ) -> Fields {
        var fields = Fields()
        fields.append(text: "notifications")
        fields.append(int: rowID)
        fields.append(int: appID)
        fields.append(text: notificationID)
        fields.append(text: version)
        fields.append(text: type)
        fields.append(text: subtype)
        var body = body
        fields.append(bytes: body.withUTF8 { Array(SHA256.hash(data: UnsafeRawBufferPointer($0))) })
        fields.append(microseconds: signedAt)
        fields.append(microseconds: receivedAt)
        return fields
    }

    /// The SHA-256 of `fields` alone: what an erasure record holds of the row it rewrote.
    public static func digest(_ fields: Fields) -> [UInt8] {
        Array(SHA256.hash(data: fields.bytes))
    }

    /// The hash of a link whose item has `fields`, after a link whose hash is `previous`.
    public static func link(previous: [UInt8], fields: Fields) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: previous)
        hasher.update(data: fields.bytes)
        return Array(hasher.finalize())
    }
}
