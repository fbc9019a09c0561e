import AppStore
import AsyncHTTPClient
import BoundedHTTP
import Foundation
import Logging
import NIOHTTP1
import SubLedgerCore

/// A client of the App Store Server API for one app in one environment.
///
/// Every signed item in an answer is verified by the injected `SignedDataVerifier` (which should be
/// configured for the same environment) before anything is returned. Uses one shared `HTTPClient`.
public struct AppStoreServerAPIClient: Sendable {
    /// Where and how to call the API.
    public struct Configuration: Sendable {
        /// Apple's production base URL (the host Apple recommends; `api.storekit.itunes.apple.com` is still
        /// served and can be given as `baseURL`).
        public static let productionBaseURL = "https://api.storekit.apple.com"
        /// Apple's sandbox base URL (`api.storekit-sandbox.itunes.apple.com` is still served).
        public static let sandboxBaseURL = "https://api.storekit-sandbox.apple.com"

        /// The environment this client serves.
        public var environment: StoreEnvironment
        /// The base URL. Default: Apple's URL for `environment`.
        public var baseURL: String
        /// Time allowed per request. Default: 30 seconds.
        public var timeout: Duration
        /// The largest answer accepted. Default: 16 MiB.
        public var maximumResponseBytes: Int
        /// The most pages `allTransactionHistory` / `allRefundHistory` will fetch. Default: 1000.
        public var maximumPages: Int

        /// Creates a configuration; `baseURL` defaults by environment.
        public init(
            environment: StoreEnvironment,
            baseURL: String? = nil,
            timeout: Duration = .seconds(30),
            maximumResponseBytes: Int = 16 * 1024 * 1024,
            maximumPages: Int = 1000
        ) {
            self.environment = environment
            self.baseURL =
                baseURL ?? (environment == .production ? Self.productionBaseURL : Self.sandboxBaseURL)
            self.timeout = timeout
            self.maximumResponseBytes = maximumResponseBytes
            self.maximumPages = maximumPages
        }
    }

    /// The configuration this client was made with.
    public let configuration: Configuration
    // Internal, not private: the endpoint extensions (`AppStoreServerAPIClient+*.swift`) send through them.
    let exchange: HTTPExchange
    let tokenIssuer: ServerAPITokenIssuer
    private let verifier: SignedDataVerifier
    let now: @Sendable () -> Instant

    /// Creates a client.
    public init(
        httpClient: HTTPClient,
        configuration: Configuration,
        tokenIssuer: ServerAPITokenIssuer,
        verifier: SignedDataVerifier,
        logger: Logger = Logger(label: "subledger.appstore.server-api"),
        now: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) {
        self.exchange = HTTPExchange(
            client: httpClient, logger: logger, maximumBytes: configuration.maximumResponseBytes)
        self.configuration = configuration
        self.tokenIssuer = tokenIssuer
        self.verifier = verifier
        self.now = now
    }

    // MARK: Endpoints

    /// Get Transaction History v2: one page, starting after `revision` (nil for the first page).
    public func transactionHistory(
        transactionID: String,
        request: TransactionHistoryRequest = TransactionHistoryRequest(),
        revision: String? = nil
    ) async throws(AppStoreServerAPIError) -> TransactionHistoryPage {
        var query = request.queryItems
        if let revision { query.append(("revision", revision)) }
        let body = try await send(
            HistoryResponse.self,
            method: .GET,
            path: "/inApps/v2/history/\(try Self.pathSegment(transactionID))",
            query: query
        )
        return TransactionHistoryPage(
            revision: body.revision,
            hasMore: body.hasMore ?? false,
            transactions: try await verifyTransactions(body.signedTransactions ?? [])
        )
    }

    /// Every page of Get Transaction History v2, following `revision` while `hasMore`.
    public func allTransactionHistory(
        transactionID: String,
        request: TransactionHistoryRequest = TransactionHistoryRequest()
    ) async throws(AppStoreServerAPIError) -> [JWSTransactionDecodedPayload] {
        try await collectPages { revision throws(AppStoreServerAPIError) in
            try await transactionHistory(transactionID: transactionID, request: request, revision: revision)
        }
    }

    /// Get All Subscription Statuses, optionally only chains with the given raw statuses.
    public func allSubscriptionStatuses(
        transactionID: String,
        statuses: [Int] = []
    ) async throws(AppStoreServerAPIError) -> SubscriptionStatuses {
        let body = try await send(
            StatusResponse.self,
            method: .GET,
            path: "/inApps/v1/subscriptions/\(try Self.pathSegment(transactionID))",
            query: statuses.map { ("status", String($0)) }
        )
        var groups: [SubscriptionStatuses.Group] = []
        for item in body.data ?? [] {
            var chains: [SubscriptionStatuses.ChainStatus] = []
            for last in item.lastTransactions ?? [] {
                var transaction: JWSTransactionDecodedPayload?
                var renewalInfo: JWSRenewalInfoDecodedPayload?
                do {
                    if let token = last.signedTransactionInfo {
                        transaction = try await verifier.verifyTransaction(token)
                    }
                    if let token = last.signedRenewalInfo { renewalInfo = try await verifier.verifyRenewalInfo(token) }
                } catch {
                    throw AppStoreServerAPIError(.verificationFailed, verificationError: error)
                }
                chains.append(
                    .init(
                        rawStatus: last.rawStatus,
                        originalTransactionID: last.originalTransactionID,
                        transaction: transaction,
                        renewalInfo: renewalInfo
                    )
                )
            }
            groups.append(
                .init(subscriptionGroupIdentifier: item.subscriptionGroupIdentifier, lastTransactions: chains))
        }
        return SubscriptionStatuses(rawEnvironment: body.rawEnvironment, groups: groups)
    }

    /// Get Transaction Info: one verified transaction.
    public func transactionInfo(transactionID: String) async throws(AppStoreServerAPIError)
        -> JWSTransactionDecodedPayload
    {
        let body = try await send(
            TransactionInfoResponse.self,
            method: .GET,
            path: "/inApps/v1/transactions/\(try Self.pathSegment(transactionID))"
        )
        guard let token = body.signedTransactionInfo else {
            throw AppStoreServerAPIError(.malformedResponse, httpStatus: 200)
        }
        return try await verifyTransactions([token])[0]
    }

    /// Get App Transaction Info (App Store Server API 1.17): the customer's app transaction, found by any of
    /// their transaction ids for the app: a `transactionId`, an `originalTransactionId` or the
    /// `appTransactionId`.
    ///
    /// `signedAppTransactionInfo` is verified (chain, signature, app, environment) before the body is returned,
    /// and is kept as Apple signed it for whoever stores or verifies it again (`SignedDataVerifier
    /// .verifyAppTransaction`). Apple answers 404 with `apiErrorCode` 4040010 (`transactionIDNotFound`) for an
    /// unknown id and 4040019 (`apiError`) when the customer has no app transaction; a non-numeric id is 400
    /// with 4000006 (`apiError`).
    public func appTransactionInfo(transactionID: String) async throws(AppStoreServerAPIError)
        -> AppTransactionInfoResponse
    {
        let body = try await send(
            AppTransactionInfoResponse.self,
            method: .GET,
            path: "/inApps/v1/transactions/appTransactions/\(try Self.pathSegment(transactionID))"
        )
        guard let token = body.signedAppTransactionInfo else {
            throw AppStoreServerAPIError(.malformedResponse, httpStatus: 200)
        }
        do {
            _ = try await verifier.verifyAppTransaction(token)
        } catch {
            throw AppStoreServerAPIError(.verificationFailed, verificationError: error)
        }
        return body
    }

    /// Look Up Order ID: the verified transactions of a customer's order id.
    public func lookUpOrder(orderID: String) async throws(AppStoreServerAPIError) -> OrderLookup {
        let body = try await send(
            OrderLookupResponse.self,
            method: .GET,
            path: "/inApps/v1/lookup/\(try Self.pathSegment(orderID))"
        )
        return OrderLookup(
            status: body.status, transactions: try await verifyTransactions(body.signedTransactions ?? []))
    }

    /// Get Refund History v2: one page, starting after `revision`.
    public func refundHistory(
        transactionID: String,
        revision: String? = nil
    ) async throws(AppStoreServerAPIError) -> TransactionHistoryPage {
        let body = try await send(
            RefundHistoryResponse.self,
            method: .GET,
            path: "/inApps/v2/refund/lookup/\(try Self.pathSegment(transactionID))",
            query: revision.map { [("revision", $0)] } ?? []
        )
        return TransactionHistoryPage(
            revision: body.revision,
            hasMore: body.hasMore ?? false,
            transactions: try await verifyTransactions(body.signedTransactions ?? [])
        )
    }

    /// Every page of Get Refund History v2.
    public func allRefundHistory(transactionID: String) async throws(AppStoreServerAPIError)
        -> [JWSTransactionDecodedPayload]
    {
        try await collectPages { revision throws(AppStoreServerAPIError) in
            try await refundHistory(transactionID: transactionID, revision: revision)
        }
    }

    /// Get Notification History: one page, starting at `paginationToken`.
    public func notificationHistory(
        _ request: NotificationHistoryRequest,
        paginationToken: String? = nil
    ) async throws(AppStoreServerAPIError) -> NotificationHistoryPage {
        let requestBody: Data
        do {
            requestBody = try JSONEncoder().encode(request)
        } catch {
            throw AppStoreServerAPIError(.invalidConfiguration)
        }
        let body = try await send(
            NotificationHistoryResponse.self,
            method: .POST,
            path: "/inApps/v1/notifications/history",
            query: paginationToken.map { [("paginationToken", $0)] } ?? [],
            body: requestBody
        )
        var items: [NotificationHistoryPage.Item] = []
        for item in body.notificationHistory ?? [] {
            guard let token = item.signedPayload else {
                throw AppStoreServerAPIError(.malformedResponse, httpStatus: 200)
            }
            do {
                items.append(
                    .init(
                        notification: try await verifier.verifyNotification(token),
                        sendAttempts: item.sendAttempts ?? [], signedPayload: token))
            } catch {
                throw AppStoreServerAPIError(.verificationFailed, verificationError: error)
            }
        }
        return NotificationHistoryPage(
            paginationToken: body.paginationToken, hasMore: body.hasMore ?? false, items: items)
    }

    /// Request a Test Notification: Apple sends a `TEST` notification to the notification URL configured for
    /// this environment in App Store Connect, and answers a token for `testNotificationStatus`.
    public func requestTestNotification() async throws(AppStoreServerAPIError) -> String {
        let body = try await send(
            SendTestNotificationResponse.self, method: .POST, path: "/inApps/v1/notifications/test")
        guard let token = body.testNotificationToken, !token.isEmpty, token.utf8.count <= 200 else {
            throw AppStoreServerAPIError(.malformedResponse, httpStatus: 200)
        }
        return token
    }

    /// Get Test Notification Status: the test notification `token` names, verified, with Apple's delivery
    /// attempts. Apple answers 404 (`apiError` 4040008) for a token it does not know.
    public func testNotificationStatus(token: String) async throws(AppStoreServerAPIError) -> TestNotificationStatus {
        let body = try await send(
            CheckTestNotificationResponse.self, method: .GET,
            path: "/inApps/v1/notifications/test/\(try Self.pathSegment(token))")
        guard let signedPayload = body.signedPayload else {
            throw AppStoreServerAPIError(.malformedResponse, httpStatus: 200)
        }
        do {
            return TestNotificationStatus(
                notification: try await verifier.verifyNotification(signedPayload),
                sendAttempts: body.sendAttempts ?? [])
        } catch {
            throw AppStoreServerAPIError(.verificationFailed, verificationError: error)
        }
    }

    // MARK: Plumbing

    private func collectPages(
        _ fetch: (String?) async throws(AppStoreServerAPIError) -> TransactionHistoryPage
    ) async throws(AppStoreServerAPIError) -> [JWSTransactionDecodedPayload] {
        var all: [JWSTransactionDecodedPayload] = []
        var revision: String?
        for _ in 0..<configuration.maximumPages {
            let page = try await fetch(revision)
            all += page.transactions
            // A page that claims more but gives no new revision would loop forever.
            guard page.hasMore, let next = page.revision, next != revision else { return all }
            revision = next
        }
        return all
    }

    private func verifyTransactions(_ tokens: [String]) async throws(AppStoreServerAPIError)
        -> [JWSTransactionDecodedPayload]
    {
        var transactions: [JWSTransactionDecodedPayload] = []
        transactions.reserveCapacity(tokens.count)
        for token in tokens {
            do {
                transactions.append(try await verifier.verifyTransaction(token))
            } catch {
                throw AppStoreServerAPIError(.verificationFailed, verificationError: error)
            }
        }
        return transactions
    }

    /// Percent-encodes an id for use as one path segment.
    static func pathComponent(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// `pathComponent(value)`, refusing what no encoding makes one segment of the endpoint's own path: an empty
    /// id (the path would end at the collection) and `.` or `..` (dot segments, which name another path).
    static func pathSegment(_ value: String) throws(AppStoreServerAPIError) -> String {
        guard !value.isEmpty, value != ".", value != ".." else { throw AppStoreServerAPIError(.invalidArgument) }
        return pathComponent(value)
    }

    static func queryString(_ items: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return items.map { name, value in
            let encodedName = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
            let encodedValue = value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
            return "\(encodedName)=\(encodedValue)"
        }.joined(separator: "&")
    }

    func send<Response: Decodable>(
        _ type: Response.Type,
        method: HTTPMethod,
        path: String,
        query: [(String, String)] = [],
        body: Data? = nil
    ) async throws(AppStoreServerAPIError) -> Response {
        var url =
            configuration.baseURL.hasSuffix("/") ? String(configuration.baseURL.dropLast()) : configuration.baseURL
        url += path
        if !query.isEmpty { url += "?" + Self.queryString(query) }
        let requestHeaders = [
            ("Authorization", "Bearer \(try tokenIssuer.token())"),
            ("Accept", "application/json"),
            ("User-Agent", "SubLedger"),
        ]
        let answer: HTTPExchange.Answer
        do {
            answer = try await exchange.perform(
                method,
                url: url,
                headers: requestHeaders,
                body: body,
                timeout: configuration.timeout
            )
        } catch {
            let code: AppStoreServerAPIError.Code = error == .timeout ? .timeout : .connectionError
            exchange.logger.debug(
                "App Store Server API request failed", metadata: ["code": "\(code)", "path": "\(path)"])
            throw AppStoreServerAPIError(code)
        }
        let (status, headers, bytes) = (answer.status, answer.headers, answer.body)
        exchange.logger.debug("App Store Server API answered", metadata: ["status": "\(status)"])
        guard (200..<300).contains(status) else {
            throw Self.error(status: status, headers: headers, body: bytes, now: now())
        }
        do {
            return try JSONDecoder().decode(Response.self, from: bytes)
        } catch {
            throw AppStoreServerAPIError(.malformedResponse, httpStatus: status)
        }
    }

    /// Maps a non-2xx answer to a typed error, reading Apple's `errorCode` and `Retry-After`.
    static func error(status: Int, headers: HTTPHeaders, body: Data, now: Instant) -> AppStoreServerAPIError {
        let apiErrorCode = (try? JSONDecoder().decode(ServerAPIErrorBody.self, from: body))?.errorCode
        switch (apiErrorCode, status) {
        case (4_040_010, _):
            return AppStoreServerAPIError(.transactionIDNotFound, apiErrorCode: apiErrorCode, httpStatus: status)
        case (4_290_000, _), (_, 429):
            return AppStoreServerAPIError(
                .rateLimited,
                apiErrorCode: apiErrorCode,
                httpStatus: status,
                retryAfter: retryAfter(headers.first(name: "Retry-After"), now: now)
            )
        case (5_000_000, _), (5_000_001, _), (_, 500...599):
            return AppStoreServerAPIError(.serverError, apiErrorCode: apiErrorCode, httpStatus: status)
        case (_, 401):
            return AppStoreServerAPIError(.unauthorized, apiErrorCode: apiErrorCode, httpStatus: status)
        default:
            return AppStoreServerAPIError(.apiError, apiErrorCode: apiErrorCode, httpStatus: status)
        }
    }

    /// Reads `Retry-After` as Apple sends it (UNIX time in milliseconds) or as HTTP allows (delay in seconds).
    static func retryAfter(_ value: String?, now: Instant) -> Instant? {
        guard let value, let number = Int64(value.trimmingCharacters(in: .whitespaces)), number >= 0 else { return nil }
        // Anything this large can only be an absolute time in milliseconds.
        if number > 100_000_000_000 { return Instant(millisecondsSince1970: number) }
        return now.adding(milliseconds: number * 1000)
    }
}
