import SubLedgerCore

/// Why a line of the import file was not imported; it carries the line number, never the receipt.
public struct ImportRowError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason, as a code and a message.
    public enum Reason: Error, Sendable, Hashable {
        case malformedCSV(String)
        case fieldTooLong(Int)
        case wrongColumnCount
        case nulCharacter
        case invalidUTF8
        case invalidAccount(String)
        case invalidEnvironment
        case needsOneSource
        case invalidOriginalTransactionID
        case invalidReceipt
        case duplicateRow(Int)
        case invalidPurchaseToken
        case invalidProductID
        case invalidSubscriptionID(Store)
        /// Apple or the ledger refused the chain (the message says which, without secrets).
        case importFailed(code: String, message: String)

        public var code: String {
            switch self {
            case .malformedCSV: "malformed_csv"
            case .fieldTooLong: "field_too_long"
            case .wrongColumnCount: "wrong_column_count"
            case .nulCharacter: "nul_character"
            case .invalidUTF8: "invalid_utf8"
            case .invalidAccount: "invalid_account_id"
            case .invalidEnvironment: "invalid_environment"
            case .needsOneSource: "needs_one_source"
            case .invalidOriginalTransactionID: "invalid_original_transaction_id"
            case .invalidReceipt: "invalid_receipt_data"
            case .duplicateRow: "duplicate_row"
            case .invalidPurchaseToken: "invalid_purchase_token"
            case .invalidProductID: "invalid_product_id"
            case .invalidSubscriptionID: "invalid_subscription_id"
            case .importFailed(let code, _): code
            }
        }

        public var message: String {
            switch self {
            case .malformedCSV(let detail): "not valid CSV: \(detail)"
            case .fieldTooLong(let limit): "a field is longer than \(limit) bytes"
            case .wrongColumnCount: "the row must have exactly the header's columns"
            case .nulCharacter: "the row contains a NUL character"
            case .invalidUTF8: "the row is not valid UTF-8"
            case .invalidAccount(let requirement): "account_id is invalid: \(requirement)"
            case .invalidEnvironment:
                "environment must be Production or Sandbox (it may be empty only for a receipt_data row)"
            case .needsOneSource: "give exactly one of original_transaction_id and receipt_data"
            case .invalidOriginalTransactionID: "original_transaction_id must be 1 to 64 digits"
            case .invalidReceipt: "receipt_data must be base64"
            case .duplicateRow(let first): "the same account and chain as line \(first)"
            case .invalidPurchaseToken: "purchase_token must be 1 to 1024 characters from A-Z a-z 0-9 . _ -"
            case .invalidProductID: "product_id is invalid: \(IdentifierRule.productID.summary)"
            case .invalidSubscriptionID(let store):
                ImportRow.subscriptionColumn(of: store) + " must be a \(store.displayName) subscription id: sub_ "
                    + "and letters, digits and underscores, at most \(ImportRow.maximumSubscriptionIDBytes) bytes"
            case .importFailed(_, let message): message
            }
        }
    }

    public var lineNumber: Int
    public var reason: Reason

    public init(_ lineNumber: Int, _ reason: Reason) {
        self.lineNumber = lineNumber
        self.reason = reason
    }

    public var description: String { "line \(lineNumber): \(reason.code): \(reason.message)" }
}
