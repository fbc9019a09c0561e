import AppStore
import Foundation
import SubLedgerCore

/// The handlers behind `ServerAPIResponder`, reading state under the engine's lock.
extension SimulatorState {
    typealias APIRequest = ServerAPIResponder.Request

    /// The transaction, when it is the authenticated app's and in the endpoint's environment.
    private func ownTransaction(_ id: String, _ request: APIRequest) -> Result<TransactionRecord, SimpleResponseBox> {
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else {
            return .failure(.init(ServerAPIError.invalidTransactionID))
        }
        guard let record = transactions[id], record.bundleID == request.app.bundleID,
            record.environment == request.environment
        else { return .failure(.init(ServerAPIError.transactionIDNotFound)) }
        return .success(record)
    }

    private func page(
        _ records: [TransactionRecord],
        revision: String?,
        _ request: APIRequest
    ) throws(SimulatorError) -> (signed: [String], revision: String, hasMore: Bool)? {
        guard let offset = ServerAPIResponder.offset(token: revision) ?? nil, offset <= records.count else {
            return nil
        }
        let end = min(offset + ServerAPIResponder.pageSize, records.count)
        var signed: [String] = []
        for record in records[offset..<end] {
            signed.append(
                try request.signer.sign(
                    SignedPayloads.transaction(
                        record, signedAt: signingInstant(of: record.originalTransactionID, now: request.now))))
        }
        return (signed, ServerAPIResponder.token(offset: end), end < records.count)
    }

    /// The two versions of Get Transaction History, which differ in what they list.
    enum HistoryVersion {
        /// `/inApps/v1/history` (deprecated): every transaction except finished consumables that are neither
        /// refunded nor revoked.
        case v1
        /// `/inApps/v2/history`: every transaction, finished consumables included.
        case v2
    }

    func transactionHistory(
        _ id: String, _ request: APIRequest, version: HistoryVersion
    ) throws(SimulatorError) -> SimpleResponse {
        let record: TransactionRecord
        switch ownTransaction(id, request) {
        case .success(let found): record = found
        case .failure(let box): return box.response
        }
        var records = transactions(of: AccountAppKey(appleID: record.appleID, bundleID: record.bundleID))
        if version == .v1 { records = records.filter { $0.isInReceipt || $0.revocationDate != nil } }
        if let start = request.first("startDate").flatMap(Int64.init) {
            records = records.filter { $0.purchaseDate.millisecondsSince1970 >= start }
        }
        if let end = request.first("endDate").flatMap(Int64.init) {
            records = records.filter { $0.purchaseDate.millisecondsSince1970 < end }
        }
        let productIDs = Set(request.all("productId"))
        if !productIDs.isEmpty { records = records.filter { productIDs.contains($0.productID) } }
        let types = Set(request.all("productType"))
        if !types.isEmpty { records = records.filter { types.contains($0.productType.serverAPIType) } }
        let groups = Set(request.all("subscriptionGroupIdentifier"))
        if !groups.isEmpty { records = records.filter { $0.subscriptionGroupID.map(groups.contains) ?? false } }
        if let ownership = request.first("inAppOwnershipType") {
            records = records.filter { $0.ownership.rawValue == ownership }
        }
        if let revoked = request.first("revoked") {
            records = records.filter { ($0.revocationDate != nil) == (revoked == "true") }
        }
        records.sort { ($0.purchaseDate, $0.sequence) < ($1.purchaseDate, $1.sequence) }
        if request.first("sort") == "DESCENDING" { records.reverse() }
        guard let page = try page(records, revision: request.first("revision"), request) else {
            return ServerAPIError.invalidRevision
        }
        return ServerAPIResponder.encode(
            HistoryBody(
                revision: page.revision, hasMore: page.hasMore, bundleId: request.app.bundleID,
                appAppleId: request.app.appAppleID, environment: request.environment.rawValue,
                signedTransactions: page.signed))
    }

    func subscriptionStatuses(_ id: String, _ request: APIRequest) throws(SimulatorError) -> SimpleResponse {
        let record: TransactionRecord
        switch ownTransaction(id, request) {
        case .success(let found): record = found
        case .failure(let box): return box.response
        }
        let wanted = Set(request.all("status").compactMap(Int.init))
        // The Apple ID's chains in the app, found through its transactions rather than a scan of every chain:
        // with 100,000 seeded chains a scan made each call, and so an import, quadratic.
        let key = AccountAppKey(appleID: record.appleID, bundleID: record.bundleID)
        let owned = Set(transactions(of: key).map(\.originalTransactionID)).compactMap { chains[$0] }
            .filter { $0.appleID == record.appleID && $0.bundleID == record.bundleID }
            .filter { wanted.isEmpty || wanted.contains($0.status.rawValue) }
            .sorted { $0.originalTransactionID < $1.originalTransactionID }
        var groups: [String: [LastTransactionBody]] = [:]
        for chain in owned {
            let latest = try transaction(chain.latestTransactionID)
            groups[chain.groupID, default: []].append(
                LastTransactionBody(
                    originalTransactionId: chain.originalTransactionID, status: chain.status.rawValue,
                    signedTransactionInfo: try request.signer.sign(
                        SignedPayloads.transaction(
                            latest, signedAt: signingInstant(of: latest.originalTransactionID, now: request.now))),
                    signedRenewalInfo: try signedRenewalInfo(
                        chain.originalTransactionID, signer: request.signer, now: request.now)))
        }
        return ServerAPIResponder.encode(
            StatusBody(
                environment: request.environment.rawValue, bundleId: request.app.bundleID,
                appAppleId: request.app.appAppleID,
                data: groups.keys.sorted().map {
                    GroupBody(subscriptionGroupIdentifier: $0, lastTransactions: groups[$0]!)
                }))
    }

    func transactionInfo(_ id: String, _ request: APIRequest) throws(SimulatorError) -> SimpleResponse {
        switch ownTransaction(id, request) {
        case .success(let record):
            return ServerAPIResponder.encode(
                [
                    "signedTransactionInfo": try request.signer.sign(
                        SignedPayloads.transaction(
                            record, signedAt: signingInstant(of: record.originalTransactionID, now: request.now)))
                ])
        case .failure(let box):
            return box.response
        }
    }

    /// Get App Transaction Info: the app transaction of the Apple ID that `id` (a transaction, original
    /// transaction or app transaction id of the app, in this environment) belongs to.
    func appTransactionInfo(_ id: String, _ request: APIRequest) throws(SimulatorError) -> SimpleResponse {
        guard !id.isEmpty, id.allSatisfy(\.isNumber) else { return ServerAPIError.invalidTransactionID }
        guard let key = appTransactionOwner(of: id, bundleID: request.app.bundleID, environment: request.environment)
        else { return ServerAPIError.transactionIDNotFound }
        // Never nil today (every id the simulator knows came with a transaction of the app); Apple's answer
        // for a customer without an app transaction, should that change.
        guard let payload = try appTransaction(key, now: request.now) else {
            return ServerAPIError.appTransactionDoesNotExist
        }
        return ServerAPIResponder.encode(["signedAppTransactionInfo": try request.signer.sign(payload)])
    }

    func lookUpOrder(_ orderID: String, _ request: APIRequest) throws(SimulatorError) -> SimpleResponse {
        let records = (orders[orderID] ?? []).compactMap { transactions[$0] }
            .filter { $0.bundleID == request.app.bundleID && $0.environment == request.environment }
        guard !records.isEmpty else { return ServerAPIResponder.encode(OrderBody(status: 1, signedTransactions: [])) }
        var signed: [String] = []
        for record in records {
            signed.append(
                try request.signer.sign(
                    SignedPayloads.transaction(
                        record, signedAt: signingInstant(of: record.originalTransactionID, now: request.now))))
        }
        return ServerAPIResponder.encode(OrderBody(status: 0, signedTransactions: signed))
    }

    func refundHistory(_ id: String, _ request: APIRequest) throws(SimulatorError) -> SimpleResponse {
        let record: TransactionRecord
        switch ownTransaction(id, request) {
        case .success(let found): record = found
        case .failure(let box): return box.response
        }
        let refunded = transactions(of: AccountAppKey(appleID: record.appleID, bundleID: record.bundleID))
            .filter { $0.isRefunded && $0.ownership == .purchased }
            .sorted { ($0.revocationDate!, $0.sequence) < ($1.revocationDate!, $1.sequence) }
        guard let page = try page(refunded, revision: request.first("revision"), request) else {
            return ServerAPIError.invalidRevision
        }
        return ServerAPIResponder.encode(
            RefundBody(signedTransactions: page.signed, revision: page.revision, hasMore: page.hasMore))
    }

    func notificationHistory(_ request: APIRequest) throws(SimulatorError) -> SimpleResponse {
        guard let filter = try? JSONDecoder().decode(NotificationHistoryRequest.self, from: request.body) else {
            return ServerAPIError.invalidRequest
        }
        // Apple keeps 180 days: an older start is refused, so nothing older is ever listed.
        if filter.startDate < request.now.millisecondsSince1970 - NotificationRetention.milliseconds {
            return ServerAPIError.startDateTooFarInPast
        }
        if filter.endDate <= filter.startDate { return ServerAPIError.startDateAfterEndDate }
        var chainID: String?
        if let transactionID = filter.transactionID {
            switch ownTransaction(transactionID, request) {
            case .success(let record): chainID = record.originalTransactionID
            case .failure(let box): return box.response
            }
        }
        let matching = notifications.records.filter { record in
            record.bundleID == request.app.bundleID && record.environment == request.environment
                && record.createdAt.millisecondsSince1970 >= filter.startDate
                && record.createdAt.millisecondsSince1970 < filter.endDate
                && (filter.notificationType == nil || record.type == filter.notificationType)
                && (filter.notificationSubtype == nil || record.subtype == filter.notificationSubtype)
                && (chainID == nil || record.originalTransactionID == chainID)
                && (filter.onlyFailures != true || !record.delivered)
        }
        guard let offset = ServerAPIResponder.offset(token: request.first("paginationToken")) ?? nil,
            offset <= matching.count
        else { return ServerAPIError.invalidNotificationPaginationToken }
        let end = min(offset + ServerAPIResponder.pageSize, matching.count)
        let items = matching[offset..<end].map { record in
            HistoryItemBody(
                signedPayload: record.signedPayload,
                sendAttempts: record.attempts.map {
                    AttemptBody(attemptDate: $0.date.millisecondsSince1970, sendAttemptResult: $0.result)
                })
        }
        return ServerAPIResponder.encode(
            NotificationHistoryBody(
                paginationToken: end < matching.count ? ServerAPIResponder.token(offset: end) : nil,
                hasMore: end < matching.count, notificationHistory: Array(items)))
    }

    func testNotificationStatus(_ token: String, _ request: APIRequest) throws(SimulatorError) -> SimpleResponse {
        guard let index = notifications.indexByUUID[token], notifications.records[index].type == "TEST",
            notifications.records[index].bundleID == request.app.bundleID
        else { return ServerAPIError.testNotificationNotFound }
        let record = notifications.records[index]
        return ServerAPIResponder.encode(
            HistoryItemBody(
                signedPayload: record.signedPayload,
                sendAttempts: record.attempts.map {
                    AttemptBody(attemptDate: $0.date.millisecondsSince1970, sendAttemptResult: $0.result)
                }))
    }
}

/// Carries an early error answer through `Result`.
struct SimpleResponseBox: Error {
    var response: SimpleResponse
    init(_ response: SimpleResponse) { self.response = response }
}

// Apple's answer bodies, with Apple's field names.

private struct HistoryBody: Encodable {
    var revision: String
    var hasMore: Bool
    var bundleId: String
    var appAppleId: Int64
    var environment: String
    var signedTransactions: [String]
}

private struct LastTransactionBody: Encodable {
    var originalTransactionId: String
    var status: Int
    var signedTransactionInfo: String
    var signedRenewalInfo: String
}

private struct GroupBody: Encodable {
    var subscriptionGroupIdentifier: String
    var lastTransactions: [LastTransactionBody]
}

private struct StatusBody: Encodable {
    var environment: String
    var bundleId: String
    var appAppleId: Int64
    var data: [GroupBody]
}

private struct OrderBody: Encodable {
    var status: Int
    var signedTransactions: [String]
}

private struct RefundBody: Encodable {
    var signedTransactions: [String]
    var revision: String
    var hasMore: Bool
}

private struct AttemptBody: Encodable {
    var attemptDate: Int64
    var sendAttemptResult: String
}

private struct HistoryItemBody: Encodable {
    var signedPayload: String
    var sendAttempts: [AttemptBody]
}

private struct NotificationHistoryBody: Encodable {
    var paginationToken: String?
    var hasMore: Bool
    var notificationHistory: [HistoryItemBody]
}
