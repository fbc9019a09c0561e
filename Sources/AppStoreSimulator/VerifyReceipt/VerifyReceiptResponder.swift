import AppStore
import Crypto
import Foundation
import SubLedgerCore

/// Apple's `verifyReceipt`: recognizes receipts the simulator issued and answers with the Apple ID's
/// current state, with Apple's status codes for everything else.
struct VerifyReceiptResponder: Sendable {
    let engine: SimulatorEngine

    private struct RequestBody: Decodable {
        var receiptData: String?
        var password: String?
        var excludeOldTransactions: Bool

        enum CodingKeys: String, CodingKey {
            case receiptData = "receipt-data"
            case password
            case excludeOldTransactions = "exclude-old-transactions"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            receiptData = try? container.decodeIfPresent(String.self, forKey: .receiptData)
            password = try? container.decodeIfPresent(String.self, forKey: .password)
            if let flag = try? container.decodeIfPresent(Bool.self, forKey: .excludeOldTransactions) {
                excludeOldTransactions = flag
            } else if let text = try? container.decodeIfPresent(String.self, forKey: .excludeOldTransactions) {
                excludeOldTransactions = text == "true" || text == "1"
            } else {
                excludeOldTransactions = false
            }
        }
    }

    /// The JSON answer for a request body sent to the `endpoint` environment's URL.
    func answer(body: Data, endpoint: StoreEnvironment) -> String {
        guard let request = try? JSONDecoder().decode(RequestBody.self, from: body) else {
            return Self.status(21000, endpoint: endpoint)
        }
        guard let text = request.receiptData, !text.isEmpty,
            let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters), !bytes.isEmpty
        else {
            return Self.status(21002, endpoint: endpoint)
        }
        let digest = Array(SHA256.hash(data: bytes))
        let now = engine.clock.now()
        let signer = engine.signer
        let outcome: Outcome = engine.state.withLock { state in
            guard var issued = state.receipts.issued[digest] else { return .unknown }
            if issued.environment == .sandbox && endpoint == .production { return .status(21007) }
            if issued.environment == .production && endpoint == .sandbox { return .status(21008) }
            guard let app = state.apps[issued.key.bundleID] else { return .status(21010) }
            let passwordGiven = !(request.password ?? "").isEmpty
            if passwordGiven, request.password != app.description.sharedSecret { return .status(21004) }
            if case .legacy(let transactionID) = issued.kind {
                return .legacy(
                    (try? state.legacyAnswer(transactionID, app: app.description, signer: signer, now: now))
                        ?? Self.status(21005, endpoint: endpoint))
            }
            let head = issued.renderedHead ?? ReceiptJSON.receiptHead(issued, app: app.description)
            let inApp = issued.renderedInApp ?? ReceiptJSON.array(issued.purchases)
            if issued.renderedHead == nil {
                issued.renderedHead = head
                issued.renderedInApp = inApp
                state.receipts.issued[digest] = issued
            }
            var latest: String?
            if passwordGiven, state.hasSubscriptions(issued.key) {
                latest = try? state.latestReceiptFragment(
                    issued.key, excludeOldTransactions: request.excludeOldTransactions, signer: signer, now: now)
            }
            return .receipt(
                head: head, inApp: inApp, latest: latest, environment: issued.environment,
                requestDate: state.receiptAnsweringInstant(for: issued.key, now: now))
        }
        switch outcome {
        case .unknown:
            // A container that parses but was not issued here fails authentication; garbage is malformed.
            let parses = (try? AppReceiptReader().read(der: Array(bytes))) != nil
            return Self.status(parses ? 21003 : 21002, endpoint: endpoint)
        case .status(let status):
            return Self.status(status, endpoint: endpoint)
        case .legacy(let json):
            return json
        case .receipt(let head, let inApp, let latest, let environment, let requestDate):
            var out = "{\"receipt\":{"
            out.reserveCapacity(head.utf8.count + inApp.utf8.count + (latest?.utf8.count ?? 0) + 400)
            out += head
            ReceiptJSON.dates(&out, "request_date", requestDate)
            out += ",\"in_app\":"
            out += inApp
            out += "},\"environment\":\""
            out += environment == .production ? "Production" : "Sandbox"
            out += "\",\"status\":0"
            if let latest {
                out += ","
                out += latest
            }
            out += "}"
            return out
        }
    }

    private enum Outcome {
        case unknown
        case status(Int)
        case legacy(String)
        case receipt(head: String, inApp: String, latest: String?, environment: StoreEnvironment, requestDate: Instant)
    }

    /// `{"status": N, "environment": ...}` (with `is-retryable` for 21100–21199).
    static func status(_ status: Int, endpoint: StoreEnvironment, isRetryable: Bool? = nil) -> String {
        var out = "{\"status\":\(status),\"environment\":\"\(endpoint == .production ? "Production" : "Sandbox")\""
        if (21100...21199).contains(status) || isRetryable != nil {
            out += ",\"is-retryable\":\((isRetryable ?? true) ? "true" : "false")"
        }
        return out + "}"
    }
}

extension SimulatorState {
    /// The pre-iOS 7 answer for a transaction receipt: the receipt's transaction at the top level of
    /// `receipt`, the chain's latest transaction in `latest_receipt_info` (an object), and status 21006
    /// with `latest_expired_receipt_info` once the subscription has ended. A subscription's answer also
    /// states its renewal at the top level, as Apple's does: `auto_renew_status` (the number 1 or 0) and
    /// `auto_renew_product_id`.
    mutating func legacyAnswer(
        _ transactionID: String,
        app: AppDescription,
        signer: PayloadSigner,
        now: Instant
    ) throws(SimulatorError) -> String {
        let record = try transaction(transactionID)
        let itemID = ReceiptIssuingIDs.itemID(record.productID, seed: seed)
        var out = "{"
        guard let chain = chains[record.originalTransactionID] else {
            JSONText.rawField(&out, "status", "0", first: true)
            JSONText.rawField(&out, "receipt", ReceiptJSON.legacyTransaction(record, app: app, itemID: itemID))
            return out + "}"
        }
        let latest = try transaction(chain.latestTransactionID)
        let latestJSON = ReceiptJSON.legacyTransaction(
            latest, app: app, itemID: ReceiptIssuingIDs.itemID(latest.productID, seed: seed))
        let ended = !chain.isEntitled
        JSONText.rawField(&out, "status", ended ? "21006" : "0", first: true)
        JSONText.rawField(&out, "auto_renew_status", chain.autoRenewEnabled ? "1" : "0")
        JSONText.field(&out, "auto_renew_product_id", chain.autoRenewProductID)
        JSONText.rawField(&out, "receipt", ReceiptJSON.legacyTransaction(record, app: app, itemID: itemID))
        JSONText.rawField(&out, ended ? "latest_expired_receipt_info" : "latest_receipt_info", latestJSON)
        JSONText.field(&out, "latest_receipt", try legacyReceipt(latest.transactionID, signer: signer, now: now))
        return out + "}"
    }
}
