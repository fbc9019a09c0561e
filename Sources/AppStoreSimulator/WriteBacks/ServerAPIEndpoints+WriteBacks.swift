import AppStore
import Foundation
import SubLedgerCore

/// Set App Account Token and Finish Transaction, as the App Store Server API answers them.
extension SimulatorState {
    static let invalidAppAccountToken = ServerAPIError.body(
        4_000_183, "Invalid request. The app account token field must be a valid UUID.", status: 400)
    static let familyTransactionNotSupported = ServerAPIError.body(
        4_000_185, "Invalid request. Family Sharing transactions aren't supported by this endpoint.", status: 400)
    static let transactionIDNotOriginal = ServerAPIError.body(
        4_000_187, "Invalid request. The transaction ID provided is not an original transaction ID.", status: 400)

    /// The app's transaction `id` in the request's environment, or Apple's refusal.
    private func requestedTransaction(_ id: String, _ request: ServerAPIResponder.Request) -> Result<
        TransactionRecord, SimpleResponseBox
    > {
        guard !id.isEmpty, id.utf8.count <= 64, id.allSatisfy(\.isNumber) else {
            return .failure(.init(ServerAPIError.invalidTransactionID))
        }
        guard let record = transactions[id], record.bundleID == request.app.bundleID,
            record.environment == request.environment
        else { return .failure(.init(ServerAPIError.transactionIDNotFound)) }
        return .success(record)
    }

    /// `PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`: every transaction of the original
    /// transaction, and the subscription's later renewals, carry the token from now on. 200 with no body.
    mutating func setAppAccountToken(_ id: String, _ request: ServerAPIResponder.Request) -> SimpleResponse {
        let record: TransactionRecord
        switch requestedTransaction(id, request) {
        case .success(let found): record = found
        case .failure(let box): return box.response
        }
        guard record.ownership != .familyShared else { return Self.familyTransactionNotSupported }
        guard record.transactionID == record.originalTransactionID else { return Self.transactionIDNotOriginal }
        struct Body: Decodable { var appAccountToken: String? }
        guard let body = try? JSONDecoder().decode(Body.self, from: request.body), let raw = body.appAccountToken,
            let uuid = UUID(uuidString: raw)
        else { return Self.invalidAppAccountToken }
        let token = uuid.uuidString.lowercased()
        for var transaction in transactions.values
        where transaction.originalTransactionID == record.transactionID
            && transaction.ownership != .familyShared
        {
            transaction.appAccountToken = token
            transaction.usernameLost = false
            save(transaction)
        }
        if var chain = chains[record.originalTransactionID] {
            chain.appAccountToken = token
            chain.usernameLost = false
            save(chain)
        }
        serverWriteBacks.append(
            ServerWriteBack(
                kind: .setAppAccountToken, transactionID: record.transactionID, appAccountToken: token,
                at: request.now))
        return SimpleResponse(status: 200, contentType: "application/json", body: "")
    }

    /// `POST /inApps/v1/transactions/{transactionId}/finish`: the app's server delivered the purchase; the device
    /// stops redelivering it, and a finished consumable leaves the receipt. 200 with no body, again for a repeat.
    mutating func finishFromServer(_ id: String, _ request: ServerAPIResponder.Request) -> SimpleResponse {
        var record: TransactionRecord
        switch requestedTransaction(id, request) {
        case .success(let found): record = found
        case .failure(let box): return box.response
        }
        record.finished = true
        save(record)
        serverWriteBacks.append(
            ServerWriteBack(
                kind: .finishTransaction, transactionID: record.transactionID, appAccountToken: nil, at: request.now))
        return SimpleResponse(status: 200, contentType: "application/json", body: "")
    }

    /// What StoreKit's `Transaction.unfinished` gives the Apple ID's device in the app: every transaction neither
    /// the app nor its server finished, oldest first, signed. StoreKit delivers them again on each launch.
    func unfinishedTransactions(of key: AccountAppKey, signer: PayloadSigner, now: Instant) throws(SimulatorError)
        -> [String]
    {
        var signed: [String] = []
        for record in transactions(of: key).filter({ !$0.finished })
            .sorted(by: { ($0.purchaseDate, $0.sequence) < ($1.purchaseDate, $1.sequence) })
        {
            signed.append(
                try signer.sign(
                    SignedPayloads.transaction(
                        record, signedAt: signingInstant(of: record.originalTransactionID, now: now))))
        }
        return signed
    }
}

/// A call the app's server made to Set App Account Token or Finish Transaction, as the simulator received it
/// (`GET /control/server-write-backs`).
public struct ServerWriteBack: Sendable, Hashable, Encodable {
    public enum Kind: String, Sendable, Hashable, Encodable {
        case setAppAccountToken = "set_app_account_token"
        case finishTransaction = "finish_transaction"
    }

    public var kind: Kind
    public var transactionID: String
    public var appAccountToken: String?
    public var at: Instant

    enum CodingKeys: String, CodingKey {
        case kind
        case transactionID = "transaction_id"
        case appAccountToken = "app_account_token"
        case at
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(transactionID, forKey: .transactionID)
        try container.encodeIfPresent(appAccountToken, forKey: .appAccountToken)
        try container.encode(at.millisecondsSince1970, forKey: .at)
    }
}
