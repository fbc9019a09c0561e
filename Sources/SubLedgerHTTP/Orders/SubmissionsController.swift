import Foundation
import Hummingbird
import SubLedgerCore
import SubLedgerUseCases

/// `POST /v1/receipts` and `POST /v1/transactions`: an account submits what its device holds, an App Store
/// submission (`StoreSubmission`) checked for shape here and verified by the App Store's port.
struct SubmissionsController: Sendable {
    let apps: AppDirectory
    let orders: Orders
    let stores: StorePorts

    func register(on group: RouterGroup<SubLedgerRequestContext>) {
        group.post("receipts") { request, context in try await receipt(request, context) }
        group.post("transactions") { request, context in try await signedTransaction(request, context) }
    }

    struct ReceiptRequest: JSONRequestBody {
        var account_id: String
        var receipt_data: String
        var transaction_id: String?
        var order_id: String?
        static let fields: Set<String> = ["account_id", "receipt_data", "transaction_id", "order_id"]
    }

    func receipt(_ request: Request, _ context: SubLedgerRequestContext) async throws -> Representation.SubmissionBody {
        let app = try await apps.app(for: try context.requireKey())
        let body = try await request.decodeJSON(as: ReceiptRequest.self, context: context)
        let account = try parseAccountID(body.account_id)
        let receiptData = body.receipt_data.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !receiptData.isEmpty, Data(base64Encoded: receiptData) != nil else {
            throw APIError.badRequest(.malformedReceipt, "receipt_data must be the base64 app receipt")
        }
        // The transaction the client just finished, if it names one: Apple's ids are short digit strings.
        let clientTransactionID = try body.transaction_id.flatMap { $0.isEmpty ? nil : $0 }.map {
            try RequestText.identifier($0, .transactionID, code: .invalidTransactionID)
        }
        let orderID = try await order(body.order_id, account: account, app: app)
        let submission = StoreSubmission(
            account: account, order: orderID,
            artifact: .appStoreReceipt(receiptData, clientTransactionID: clientTransactionID))
        let result = try await stores.submit(submission, app: app)
        return Representation.SubmissionBody(result, account: account, clientTransactionID: clientTransactionID)
    }

    struct TransactionRequest: JSONRequestBody {
        var account_id: String
        var signed_transaction: String
        var order_id: String?
        static let fields: Set<String> = ["account_id", "signed_transaction", "order_id"]
    }

    func signedTransaction(_ request: Request, _ context: SubLedgerRequestContext) async throws
        -> Representation.SubmissionBody
    {
        let app = try await apps.app(for: try context.requireKey())
        let body = try await request.decodeJSON(as: TransactionRequest.self, context: context)
        let account = try parseAccountID(body.account_id)
        let token = body.signed_transaction.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.split(separator: ".", omittingEmptySubsequences: false).count == 3,
            token.utf8.allSatisfy(Self.isJWSByte)
        else {
            throw APIError.badRequest(.malformedJWS, "signed_transaction must be a JWS (three dot-separated parts)")
        }
        let orderID = try await order(body.order_id, account: account, app: app)
        let submission = StoreSubmission(account: account, order: orderID, artifact: .appStoreSignedTransaction(token))
        let result = try await stores.submit(submission, app: app)
        return Representation.SubmissionBody(result, account: account, clientTransactionID: nil)
    }

    /// A compact JWS is three base64url parts joined by dots: anything else is malformed before it is stored.
    static func isJWSByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }

    /// The optional `order_id`: it must be an order of this app placed by this account.
    private func order(_ raw: String?, account: AccountID, app: AppDirectory.App) async throws -> OrderID? {
        guard let raw, !raw.isEmpty else { return nil }
        // Only an id that is an order id is repeated in the answer (the text is the client's, of any length).
        guard let id = try? OrderID(raw) else {
            throw APIError.notFound(.unknownOrder, "no such order of this account (an order id is a UUID)")
        }
        guard let order = try await orders.order(id, app: app), order.account == account else {
            throw APIError.notFound(.unknownOrder, "no order '\(id)' of this account")
        }
        return order.id
    }
}
