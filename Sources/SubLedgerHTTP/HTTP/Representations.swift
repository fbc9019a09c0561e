import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// JSON shapes of the API (snake_case, times as RFC 3339 with milliseconds, UTC).
enum Representation {
    /// A time as the API writes it: `RFC3339.format` (`2026-11-22T10:15:00.000Z`), or `nil` when absent.
    static func time(_ instant: Instant?) -> String? {
        instant.map { RFC3339.format($0) }
    }

    /// The longest time text the API reads (openapi.yaml's `maxLength` of `at`).
    static let maximumTimeLength = 64
    /// What `instant` reads, for the 400 `invalid_time` answer.
    static let timeRule =
        "'at' must be an RFC 3339 time or milliseconds since 1970, in years 1970 to 9999, of at most 64 characters"

    /// A time the API reads (`at`): RFC 3339 or whole milliseconds since 1970, in `Instant.acceptedRange`, of at
    /// most `maximumTimeLength` characters; `nil` for anything else.
    static func instant(_ text: String) -> Instant? {
        guard text.utf8.count <= maximumTimeLength else { return nil }
        if let milliseconds = Int64(text) { return Instant(acceptedMillisecondsSince1970: milliseconds) }
        return Instant(acceptedRFC3339: text)
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
        /// The store that sold it, when not the App Store (`google_play`).
        var store: String?

        init(_ entitlement: Entitlement) {
            entitlement_id = entitlement.entitlementID
            product_id = entitlement.productID
            product_type = entitlement.productType.rawValue
            state = entitlement.state.name
            expires_at = Representation.time(entitlement.expiresAt)
            grace_period_expires_at = Representation.time(entitlement.gracePeriodExpiresAt)
            will_auto_renew = entitlement.willAutoRenew
            ownership_type = entitlement.ownershipType.rawValue
            original_transaction_id = entitlement.chainID
            environment = entitlement.environment.rawValue
            store = entitlement.store == .appStore && entitlement.grantID == nil ? nil : entitlement.sourceName
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

        init(_ outcome: TransactionOutcome, submitter: AccountID?) {
            transaction_id = outcome.transactionID
            original_transaction_id = outcome.chainID
            product_id = outcome.productID
            switch outcome.result {
            case .applied(let account):
                // The core tells outcomes from the submitter's side; another account is never named.
                result = account == submitter ? "applied" : "belongs_to_another_account"
            case .duplicate:
                // Known already and nothing new: the core answers it only when the chain is the submitter's, as the
                // first submission that made it so answered `applied`. The transaction itself may be credited to an
                // earlier owner (a period it held before a transfer); the answer speaks of the submitter's chain.
                result = "applied"
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
            original_transaction_id = ignored.transaction.chainID
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

        /// The answer for `account`, or for the account it was merged into when the submission landed there.
        init(_ result: SubmissionOutcome, account: AccountID, clientTransactionID: String?) {
            let answered = result.account ?? account
            account_id = answered.rawValue
            environment = result.environment.rawValue
            transactions =
                result.outcomes.map { OutcomeBody($0, submitter: answered) }
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
