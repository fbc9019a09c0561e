import Foundation
import Hummingbird
import SubLedgerCore

/// JSON shapes of the API (snake_case, times as RFC 3339 with milliseconds, UTC).
enum Representation {
    static func time(_ instant: Instant?) -> String? {
        instant.map { instant in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(24)
            return appendTime(instant, to: &bytes) ? String(decoding: bytes, as: UTF8.self) : foundationTime(instant)
        }
    }

    /// `time` through Foundation's ISO 8601 style: the reference for `appendTime`, and the form of instants
    /// outside years 1970 to 9999.
    static func foundationTime(_ instant: Instant) -> String {
        let date = Date(timeIntervalSince1970: Double(instant.millisecondsSince1970) / 1000)
        return date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)
        )
        .replacingOccurrences(of: "+0000", with: "Z")
    }

    /// Parses `2026-11-22T07:03:26Z`, `...26.123Z` or an offset, or whole milliseconds since 1970; `nil` for
    /// anything else or an instant outside `Instant.acceptedRange` (so no date arithmetic on it can overflow).
    static func parseTime(_ text: String) -> Instant? {
        guard text.utf8.count <= 64 else { return nil }
        if let milliseconds = Int64(text) {
            return Instant(acceptedMillisecondsSince1970: milliseconds)
        }
        for includingFraction in [true, false] {
            let style = Date.ISO8601FormatStyle(includingFractionalSeconds: includingFraction)
            if let date = try? style.parse(text) {
                return Instant(acceptedMillisecondsSince1970: (date.timeIntervalSince1970 * 1000).rounded())
            }
        }
        return nil
    }

    struct EntitlementBody: Codable, Sendable {
        var entitlement_id: String
        var product_id: String
        var product_type: String
        var state: String
        var expires_at: String?
        var grace_period_expires_at: String?
        var will_auto_renew: Bool?
        var ownership_type: String
        var original_transaction_id: String
        var environment: String

        init(_ entitlement: Entitlement) {
            entitlement_id = entitlement.entitlementID
            product_id = entitlement.productID
            product_type = entitlement.productType.rawValue
            state = entitlement.state.name
            expires_at = Representation.time(entitlement.expiresAt)
            grace_period_expires_at = Representation.time(entitlement.gracePeriodExpiresAt)
            will_auto_renew = entitlement.willAutoRenew
            ownership_type = entitlement.ownershipType.rawValue
            original_transaction_id = entitlement.originalTransactionID
            environment = entitlement.environment.rawValue
        }
    }

    struct OutcomeBody: Codable, Sendable {
        var transaction_id: String
        var original_transaction_id: String
        var product_id: String
        /// `applied` (to the submitter, now or before), `belongs_to_another_account`, `unclaimed`, `deferred`,
        /// `ignored`.
        var result: String
        var ignored_reason: String?

        init(_ outcome: TransactionOutcome, submitter: AccountID?, owner: AccountID?) {
            transaction_id = outcome.transactionID
            original_transaction_id = outcome.originalTransactionID
            product_id = outcome.productID
            switch outcome.result {
            case .applied(let account):
                // The core tells outcomes from the submitter's side; another account is never named.
                result = account == submitter ? "applied" : "belongs_to_another_account"
            case .duplicate:
                // Already known and nothing changed: say what it means to the submitter.
                switch owner {
                case nil: result = "unclaimed"
                case submitter: result = "applied"
                default: result = "belongs_to_another_account"
                }
            case .belongsToAnotherAccount: result = "belongs_to_another_account"
            case .unclaimed: result = "unclaimed"
            case .deferred: result = "deferred"
            case .ignored(let reason):
                result = "ignored"
                ignored_reason = reason.rawValue
            }
        }

        init(_ ignored: IgnoredTransaction) {
            transaction_id = ignored.transaction.transactionID
            original_transaction_id = ignored.transaction.originalTransactionID
            product_id = ignored.transaction.productID
            result = "ignored"
            ignored_reason = ignored.reason.rawValue
        }
    }

    struct SubmissionBody: ResponseEncodable, Codable, Sendable {
        var account_id: String
        var environment: String
        var transactions: [OutcomeBody]
        var client_transaction: ClientTransaction?
        var entitlements: [EntitlementBody]

        struct ClientTransaction: Codable, Sendable {
            var transaction_id: String
            /// Whether the transaction the client just finished is in what was submitted.
            var found: Bool
            var result: String?
        }

        init(_ result: SubmissionOutcome, account: AccountID, clientTransactionID: String?) {
            account_id = account.rawValue
            environment = result.environment.rawValue
            transactions =
                result.outcomes.map { OutcomeBody($0, submitter: account, owner: result.accounts[$0.transactionID]) }
                + result.ignored.map(OutcomeBody.init)
            if let clientTransactionID {
                let match = transactions.first { $0.transaction_id == clientTransactionID }
                client_transaction = ClientTransaction(
                    transaction_id: clientTransactionID, found: match != nil, result: match?.result)
            }
            entitlements = result.entitlements.map(EntitlementBody.init)
        }
    }
}
