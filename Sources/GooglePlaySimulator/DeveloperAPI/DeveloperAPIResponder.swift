import Foundation
import GooglePlay
import SubLedgerCore

/// Answers the Android Publisher API's purchase methods from the simulator's state, as Google does: bearer
/// access tokens from the token endpoint, Google's error bodies and statuses.
struct DeveloperAPIResponder: Sendable {
    let engine: SimulatorEngine

    /// Answers one request; `queryItems` are the query's parameters in order, repeated ones (`orderIds`) each kept.
    func respond(
        method: String, path: String, queryItems: [(name: String, value: String)], body: Data, authorization: String?
    ) async -> GoogleAnswer {
        var query: [String: String] = [:]
        for item in queryItems { query[item.name] = item.value }
        guard let authorization else { return .unauthenticated }
        guard let token = try? CompactJWT.bearerToken(fromAuthorization: authorization),
            engine.accessTokens.isValid(token, now: engine.wallClock())
        else { return .invalidCredentials }
        guard let route = AndroidPublisherRoute(method: method, path: path) else {
            return .error(404, "Not Found", reason: "notFound")
        }
        let answer: GoogleAnswer
        do throws(GoogleFailure) {
            answer = try answerRoute(route, query: query, queryItems: queryItems, body: body)
        } catch {
            return error.answer
        }
        await engine.deliverDue()
        return answer
    }

    /// A refusal on the way to an answer.
    struct GoogleFailure: Error {
        var answer: GoogleAnswer
    }

    private func answerRoute(
        _ route: AndroidPublisherRoute, query: [String: String], queryItems: [(name: String, value: String)],
        body: Data
    ) throws(GoogleFailure) -> GoogleAnswer {
        guard (try? engine.read({ state throws(SimulatorError) in state.packages[route.packageName] != nil })) == true
        else { throw GoogleFailure(answer: .packageNotFound) }
        switch route {
        case .getSubscriptionV2(let package, let token):
            let record = try subscription(package, token)
            if let expiredAt = record.expiredAt,
                engine.now.millisecondsSince1970 - expiredAt.millisecondsSince1970 > Timing.queryableAfterExpiry
            {
                throw GoogleFailure(answer: .expiredTooLong)
            }
            return .json(record.wire)
        case .revokeSubscriptionV2(let package, let token):
            let request = try decode(RevokeSubscriptionPurchaseRequest.self, body)
            guard let context = request.revocationContext, context.memberCount == 1 else {
                throw GoogleFailure(
                    answer: .error(400, "Exactly one revocation context must be set.", reason: "invalid"))
            }
            guard context.itemBasedRefund == nil else {
                throw GoogleFailure(
                    answer: .error(
                        400, "Item-based refunds are only for subscriptions with several items.", reason: "invalid"))
            }
            try change(package, token) { state, record, now throws(SimulatorError) in
                guard !record.revoked, record.status != .expired, !record.status.isPending else {
                    throw SimulatorError(.conflict, "The subscription purchase is not revocable.")
                }
                state.revoke(
                    &record, at: now, source: VoidedPurchase.Source.developer.rawValue,
                    reason: VoidedPurchase.Reason.other.rawValue, initiator: .developer)
            }
            return .json(EmptyContext())
        case .cancelSubscriptionV2(let package, let token):
            _ = try decode(CancelSubscriptionPurchaseRequest.self, body, allowEmpty: true)
            _ = try subscription(package, token)
            try run { state, now throws(SimulatorError) in try state.cancel(token, by: .developer, now: now) }
            return .json(EmptyContext())
        case .deferSubscriptionV2(let package, let token):
            let request = try decode(DeferSubscriptionPurchaseRequest.self, body)
            guard let context = request.deferralContext, let seconds = context.deferSeconds,
                seconds >= 86_400, seconds <= 365 * 86_400
            else {
                throw GoogleFailure(
                    answer: .error(400, "deferDuration must be between 1 day and 365 days.", reason: "invalid"))
            }
            var expiry: Instant?
            try change(package, token) { state, record, now throws(SimulatorError) in
                guard record.status == .active || record.status == .canceled else {
                    throw SimulatorError(.conflict, "Only an active subscription can be deferred.")
                }
                if context.validateOnly != true {
                    record.periodEnd = record.periodEnd.adding(milliseconds: seconds * 1000)
                    state.emit(record.packageName, at: now, subscription: .deferred, record.token)
                    expiry = record.expiry
                } else {
                    expiry = record.expiry.adding(milliseconds: seconds * 1000)
                }
            }
            let productId = try subscription(package, token).productId
            return .json(
                DeferSubscriptionPurchaseResponse(itemExpiryTimeDetails: [
                    ItemExpiryTimeDetails(productId: productId, expiryTime: expiry.map(GoogleTime.format))
                ]))
        case .acknowledgeSubscription(let package, let productId, let token):
            _ = try decode(AcknowledgeRequest.self, body, allowEmpty: true)
            try change(package, token) { _, record, _ throws(SimulatorError) in
                guard record.productId == productId else { throw SimulatorError(.notFound, "") }
                guard !record.status.isPending else {
                    throw SimulatorError(.conflict, "The purchase is pending and cannot be acknowledged.")
                }
                guard !record.revoked else {
                    throw SimulatorError(.conflict, "The purchase has been refunded and cannot be acknowledged.")
                }
                record.acknowledged = true
            }
            return .empty
        case .getProduct(let package, let productId, let token):
            let record = try oneTime(package, token)
            guard record.productId == productId else { throw GoogleFailure(answer: .invalidToken) }
            return .json(record.wire)
        case .getProductV2(let package, let token):
            return .json(try oneTime(package, token).wireV2)
        case .acknowledgeProduct(let package, let productId, let token):
            _ = try decode(AcknowledgeRequest.self, body, allowEmpty: true)
            try changeOneTime(package, productId, token) { record throws(SimulatorError) in
                guard !record.pending, !record.pendingCanceled else {
                    throw SimulatorError(.conflict, "The purchase is not in the purchased state.")
                }
                guard !record.refunded else {
                    throw SimulatorError(.conflict, "The purchase has been refunded and cannot be acknowledged.")
                }
                record.acknowledged = true
            }
            return .empty
        case .consumeProduct(let package, let productId, let token):
            try changeOneTime(package, productId, token) { record throws(SimulatorError) in
                guard record.consumable else { throw SimulatorError(.conflict, "The product is not consumable.") }
                guard !record.consumed else { throw SimulatorError(.conflict, "The purchase is already consumed.") }
                guard !record.refunded else { throw SimulatorError(.conflict, "The purchase has been refunded.") }
                guard !record.pending, !record.pendingCanceled else {
                    throw SimulatorError(.conflict, "The purchase is not in the purchased state.")
                }
                // Consuming acknowledges, as with Google.
                record.consumed = true
                record.acknowledged = true
            }
            return .empty
        case .listVoidedPurchases(let package):
            return try listVoided(package, query: query)
        case .getOrder(let package, let orderId):
            return .json(try order(orderId, in: package))
        case .batchGetOrders(let package):
            let ids = queryItems.filter { $0.name == "orderIds" }.map { $0.value }
            guard (1...1000).contains(ids.count) else {
                throw GoogleFailure(
                    answer: .error(400, "Between 1 and 1000 order IDs must be requested.", reason: "invalid"))
            }
            guard Set(ids).count == ids.count else {
                throw GoogleFailure(answer: .error(400, "The order IDs must be distinct.", reason: "invalid"))
            }
            var orders: [GooglePlayOrder] = []
            for id in ids { orders.append(try order(id, in: package)) }
            return .json(BatchGetOrdersResponse(orders: orders))
        }
    }

    /// The order `orderId` names in `package`; Google's 404 when there is none there.
    private func order(_ orderId: String, in package: String) throws(GoogleFailure) -> GooglePlayOrder {
        let found = try? engine.read { state throws(SimulatorError) in state.order(orderId, in: package) }
        guard let order = found ?? nil else { throw GoogleFailure(answer: .orderNotFound) }
        return order
    }

    // MARK: State access with Google's refusals

    private func subscription(_ package: String, _ token: String) throws(GoogleFailure) -> SubscriptionRecord {
        let record = try? engine.read { state throws(SimulatorError) in state.subscriptions[token] }
        guard let found = record ?? nil, found.packageName == package else {
            throw GoogleFailure(answer: .invalidToken)
        }
        return found
    }

    private func oneTime(_ package: String, _ token: String) throws(GoogleFailure) -> OneTimePurchaseRecord {
        let record = try? engine.read { state throws(SimulatorError) in state.oneTimePurchases[token] }
        guard let found = record ?? nil, found.packageName == package else {
            throw GoogleFailure(answer: .invalidToken)
        }
        return found
    }

    private func run(_ body: (inout SimulatorState, Instant) throws(SimulatorError) -> Void) throws(GoogleFailure) {
        do throws(SimulatorError) {
            _ = try engine.mutate(body)
        } catch {
            throw GoogleFailure(answer: Self.refusal(error))
        }
    }

    private func change(
        _ package: String, _ token: String,
        _ body: (inout SimulatorState, inout SubscriptionRecord, Instant) throws(SimulatorError) -> Void
    ) throws(GoogleFailure) {
        try run { state, now throws(SimulatorError) in
            guard var record = state.subscriptions[token], record.packageName == package else {
                throw SimulatorError(.notFound, "")
            }
            try body(&state, &record, now)
            state.subscriptions[token] = record
        }
    }

    private func changeOneTime(
        _ package: String, _ productId: String, _ token: String,
        _ body: (inout OneTimePurchaseRecord) throws(SimulatorError) -> Void
    ) throws(GoogleFailure) {
        try run { state, _ throws(SimulatorError) in
            guard var record = state.oneTimePurchases[token], record.packageName == package,
                record.productId == productId
            else { throw SimulatorError(.notFound, "") }
            try body(&record)
            state.oneTimePurchases[token] = record
        }
    }

    private static func refusal(_ error: SimulatorError) -> GoogleAnswer {
        error.code == .notFound ? .invalidToken : .error(400, error.message, reason: "invalid")
    }

    private func decode<Value: Decodable>(_ type: Value.Type, _ body: Data, allowEmpty: Bool = false)
        throws(GoogleFailure) -> Value
    {
        let data = body.isEmpty && allowEmpty ? Data("{}".utf8) : body
        guard !data.contains(0), String(validating: data, as: UTF8.self) != nil,
            let value = try? JSONDecoder().decode(Value.self, from: data)
        else {
            throw GoogleFailure(answer: .error(400, "Invalid JSON payload received.", reason: "parseError"))
        }
        return value
    }

    // MARK: Voided purchases

    /// `purchases.voidedpurchases.list`: voided in `[startTime, endTime]` (by voided time), `type` 0 one-time only
    /// (default) or 1 with subscriptions, `maxResults` (default and at most 1000), continued by `token`.
    private func listVoided(_ package: String, query: [String: String]) throws(GoogleFailure) -> GoogleAnswer {
        let now = engine.now.millisecondsSince1970
        var cursor: VoidedCursor
        if let token = query["token"] {
            guard let parsed = VoidedCursor(token: token) else {
                throw GoogleFailure(answer: .error(400, "Invalid pagination token.", reason: "invalid"))
            }
            cursor = parsed
        } else {
            func number(_ name: String) throws(GoogleFailure) -> Int64? {
                guard let text = query[name] else { return nil }
                guard let value = GoogleInt64.parse(text) else {
                    throw GoogleFailure(answer: .error(400, "Invalid value for \(name).", reason: "invalid"))
                }
                return value
            }
            let start = try number("startTime") ?? now - Timing.voidedLookBack
            let end = try number("endTime") ?? now
            let type = try number("type") ?? 0
            guard start >= now - Timing.voidedLookBack else {
                throw GoogleFailure(
                    answer: .error(400, "startTime cannot be more than 30 days in the past.", reason: "invalid"))
            }
            guard end <= now else {
                throw GoogleFailure(answer: .error(400, "endTime cannot be in the future.", reason: "invalid"))
            }
            guard start <= end else {
                throw GoogleFailure(answer: .error(400, "startTime must be before endTime.", reason: "invalid"))
            }
            guard type == 0 || type == 1 else {
                throw GoogleFailure(answer: .error(400, "type must be 0 or 1.", reason: "invalid"))
            }
            cursor = VoidedCursor(start: start, end: end, includeSubscriptions: type == 1, offset: 0)
        }
        var limit = 1000
        if let text = query["maxResults"] {
            guard let value = Int(text), (1...1000).contains(value) else {
                throw GoogleFailure(answer: .error(400, "maxResults must be 1 to 1000.", reason: "invalid"))
            }
            limit = value
        }
        let includePartial = query["includeQuantityBasedPartialRefund"] == "true"
        let all = (try? engine.read { state throws(SimulatorError) in state.voided }) ?? []
        let matching = all.filter { record in
            let stamp = record.voidedTime.millisecondsSince1970
            let partialAllowed = includePartial || record.voidedQuantity == nil
            return stamp >= cursor.start && stamp <= cursor.end
                && (cursor.includeSubscriptions || !record.isSubscription)
                && partialAllowed && record.packageName == package
        }
        guard cursor.offset <= matching.count else {
            throw GoogleFailure(answer: .error(400, "Invalid pagination token.", reason: "invalid"))
        }
        let page = matching.dropFirst(cursor.offset).prefix(limit)
        var next: TokenPagination?
        if cursor.offset + page.count < matching.count {
            cursor.offset += page.count
            next = TokenPagination(nextPageToken: cursor.token)
        }
        return .json(
            VoidedPurchasesListResponse(
                voidedPurchases: page.map(\.wire), tokenPagination: next,
                pageInfo: PageInfo(
                    totalResults: Int32(clamping: matching.count), resultPerPage: Int32(clamping: limit),
                    startIndex: Int32(clamping: cursor.offset))))
    }
}

/// The continuation of a voided purchases listing: its window, type and offset, in an opaque token.
struct VoidedCursor: Sendable {
    var start: Int64
    var end: Int64
    var includeSubscriptions: Bool
    var offset: Int

    init(start: Int64, end: Int64, includeSubscriptions: Bool, offset: Int) {
        self.start = start
        self.end = end
        self.includeSubscriptions = includeSubscriptions
        self.offset = offset
    }

    init?(token: String) {
        guard token.utf8.count <= 200, let data = Base64URL.decode(token),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let parts = text.split(separator: ":").map(String.init)
        guard parts.count == 5, parts[0] == "v1", let start = GoogleInt64.parse(parts[1]),
            let end = GoogleInt64.parse(parts[2]), parts[3] == "0" || parts[3] == "1", let offset = Int(parts[4]),
            offset >= 0
        else { return nil }
        self.init(start: start, end: end, includeSubscriptions: parts[3] == "1", offset: offset)
    }

    var token: String {
        Base64URL.encode(Data("v1:\(start):\(end):\(includeSubscriptions ? 1 : 0):\(offset)".utf8))
    }
}
