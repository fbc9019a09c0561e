import AppStore
import BoundedHTTP
import Foundation
import NIOHTTP1

extension AppStoreServerAPIClient {
    /// Send Consumption Information: `PUT /inApps/v2/transactions/consumption/{transactionId}`. Apple answers
    /// 202 Accepted with no body; anything else throws (`isRetryable` tells a passing failure from a refusal).
    public func sendConsumptionInformation(transactionID: String, _ request: ConsumptionRequest)
        async throws(AppStoreServerAPIError)
    {
        try await sendWithoutAnswer(
            .PUT, path: "/inApps/v2/transactions/consumption/\(try Self.pathSegment(transactionID))", body: request)
    }

    /// Send Consumption Information V1: `PUT /inApps/v1/transactions/consumption/{transactionId}`, the older
    /// request with integer buckets. Apple answers 202 Accepted with no body.
    public func sendConsumptionInformationV1(transactionID: String, _ request: ConsumptionRequestV1)
        async throws(AppStoreServerAPIError)
    {
        try await sendWithoutAnswer(
            .PUT, path: "/inApps/v1/transactions/consumption/\(try Self.pathSegment(transactionID))", body: request)
    }

    /// A request whose success answer has no body worth reading; `body`, when given, is sent as JSON.
    func sendWithoutAnswer(_ method: HTTPMethod, path: String, body: (any Encodable)?)
        async throws(AppStoreServerAPIError)
    {
        let answer = try await exchangeJSON(method, path: path, body: body)
        guard (200..<300).contains(answer.status) else {
            throw Self.error(status: answer.status, headers: answer.headers, body: answer.body, now: now())
        }
    }

    /// Sends `body` (when given) as JSON and returns whatever Apple answered, any status; throws only when nothing
    /// was answered (timeout, connection) or the body cannot be encoded.
    func exchangeJSON(_ method: HTTPMethod, path: String, body: (any Encodable)?)
        async throws(AppStoreServerAPIError) -> HTTPExchange.Answer
    {
        var data: Data?
        if let body {
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                data = try encoder.encode(body)
            } catch {
                throw AppStoreServerAPIError(.invalidConfiguration)
            }
        }
        let base =
            configuration.baseURL.hasSuffix("/") ? String(configuration.baseURL.dropLast()) : configuration.baseURL
        let headers = [
            ("Authorization", "Bearer \(try tokenIssuer.token())"),
            ("Accept", "application/json"),
            ("User-Agent", "SubLedger"),
        ]
        let answer: HTTPExchange.Answer
        do {
            answer = try await exchange.perform(
                method, url: base + path, headers: headers, body: data, timeout: configuration.timeout)
        } catch {
            let code: AppStoreServerAPIError.Code = error == .timeout ? .timeout : .connectionError
            exchange.logger.debug(
                "App Store Server API request failed", metadata: ["code": "\(code)", "path": "\(path)"])
            throw AppStoreServerAPIError(code)
        }
        exchange.logger.debug("App Store Server API answered", metadata: ["status": "\(answer.status)"])
        return answer
    }
}
